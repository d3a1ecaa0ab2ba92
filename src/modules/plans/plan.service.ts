import type { Db, Reader, Trx } from '../../db/database.js'
import type { CoverageType, PlanKind } from '../../db/tables/plan.js'
import { ValidationError } from '../../shared/errors.js'
import { requirePartner } from '../partners/partner.service.js'
import {
  clearDefaultAnnualPlan,
  findSubscriptionPlan,
  insertPlan,
  listSubscriptionPlans,
  type SubscriptionPlanRow,
} from './plan.repository.js'

export type { SubscriptionPlanRow }

import {
  coverageTypesNamedBy,
  DEFAULT_CLAIM_NOTICE_DAYS,
  DEFAULT_MAX_CLAIMS_PER_YEAR,
  orderedCoverageTypes,
} from './plan.rules.js'

export interface NewPlan {
  partnerId: number
  kind: PlanKind
  name: string
  coverages: string[]
  /** Default: the types the `coverages` words name (coverageTypesNamedBy). */
  coverageTypes?: CoverageType[]
  claimNoticeDays?: number
  maxClaimsPerYear?: number
  /** Subscription plans. */
  installments?: number
  monthlyRateBp?: number
  franchiseRateBp?: number
  /** Annual plans. */
  annualRateBp?: number
  usedFactorBp?: number
  isDefault?: boolean
}

function required<T>(value: T | undefined, key: string): T {
  if (value === undefined)
    throw ValidationError.field(key, `The ${key.replace(/_/g, ' ')} field is required.`)
  return value
}

const FULL = 10_000 // basis points: 100 %

/**
 * A rate in basis points within (0, max] (or [0, max] when zero is allowed): a premium rate of 0
 * is a free plan and one above 100 % of the LMI a typo, and the column holds 32 bits.
 */
function bounded(bp: number, key: string, max: number, zero = false): number {
  if (!Number.isInteger(bp) || bp > max || bp < 0 || (bp === 0 && !zero)) {
    const label = key.replace(/_/g, ' ')
    throw ValidationError.field(
      key,
      `The ${label} must be ${zero ? 'from 0' : 'above 0'} up to ${max / FULL}.`,
    )
  }
  return bp
}

/** A positive whole number of at most `max` (days of notice, claims a year). */
function dayCount(value: number, key: string, max: number): number {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw ValidationError.field(key, `The ${key.replace(/_/g, ' ')} must be a whole number from 1 to ${max}.`)
  }
  return value
}

// The fields of one kind of plan, by the name errors give them.
const SUBSCRIPTION_ONLY = { installments: 'installments', monthlyRateBp: 'monthly_rate' }
const ANNUAL_ONLY = { annualRateBp: 'annual_rate', usedFactorBp: 'used_factor', isDefault: 'default' }

/** Fields of the other kind of plan are refused rather than dropped without a word. */
function refuseOtherKind(input: NewPlan, fields: Partial<Record<keyof NewPlan, string>>, kind: string) {
  for (const [field, key] of Object.entries(fields) as [keyof NewPlan, string][]) {
    if (input[field] !== undefined && input[field] !== false)
      throw ValidationError.field(key, `The ${key.replace(/_/g, ' ')} field does not apply to ${kind} plans.`)
  }
}

/** Creates a plan; a new default annual plan takes the default from the previous one. */
export async function createPlan(trx: Trx, input: NewPlan, now: string) {
  await requirePartner(trx, input.partnerId)
  const name = input.name.trim()
  if (!name) throw ValidationError.field('name', 'The name field is required.')
  const subscription = input.kind === 'subscription'
  if (subscription) refuseOtherKind(input, ANNUAL_ONLY, 'subscription')
  else refuseOtherKind(input, SUBSCRIPTION_ONLY, 'annual')
  const installments = subscription ? required(input.installments, 'installments') : 1
  if (!Number.isInteger(installments) || installments < 1 || installments > 60) {
    throw ValidationError.field('installments', 'The installments field must be between 1 and 60.')
  }
  const coverages = input.coverages.map((c) => c.trim()).filter(Boolean)
  const values = {
    partner_id: input.partnerId,
    kind: input.kind,
    name,
    installments,
    monthly_rate_bp: subscription
      ? bounded(required(input.monthlyRateBp, 'monthly_rate'), 'monthly_rate', FULL)
      : null,
    // Optional for annual plans (README, Claims): without it their franchise is 0.
    franchise_rate_bp: subscription
      ? bounded(required(input.franchiseRateBp, 'franchise_rate'), 'franchise_rate', FULL, true)
      : input.franchiseRateBp === undefined
        ? null
        : bounded(input.franchiseRateBp, 'franchise_rate', FULL, true),
    annual_rate_bp: subscription
      ? null
      : bounded(required(input.annualRateBp, 'annual_rate'), 'annual_rate', FULL),
    used_factor_bp: subscription ? null : bounded(input.usedFactorBp ?? FULL, 'used_factor', 10 * FULL),
    coverages: JSON.stringify(coverages),
    coverage_types: JSON.stringify(
      input.coverageTypes ? orderedCoverageTypes(input.coverageTypes) : coverageTypesNamedBy(coverages),
    ),
    claim_notice_days: dayCount(
      input.claimNoticeDays ?? DEFAULT_CLAIM_NOTICE_DAYS,
      'claim_notice_days',
      3650,
    ),
    max_claims_per_year: dayCount(
      input.maxClaimsPerYear ?? DEFAULT_MAX_CLAIMS_PER_YEAR,
      'max_claims_per_year',
      100,
    ),
    is_default: !subscription && (input.isDefault ?? false),
    active: true,
    created_at: now,
  }
  if (values.is_default) await clearDefaultAnnualPlan(trx, input.partnerId)
  return insertPlan(trx, values)
}

/** The partner's subscription plan, for contracting; undefined when it is not theirs. */
export async function subscriptionPlanOf(db: Reader, partnerId: number, planId: number) {
  return findSubscriptionPlan(db, partnerId, planId)
}

/** The partner's active subscription plans, by id: what `GET /plans` lists. */
export async function subscriptionPlansOf(db: Db, partnerId: number): Promise<SubscriptionPlanRow[]> {
  return listSubscriptionPlans(db, partnerId)
}
