import type { Generated, SqlBool } from 'kysely'

/** The perils a plan covers and a claim names (README, Claims); their labels are in plan.rules.ts. */
export const COVERAGE_TYPES = ['robbery', 'qualified_theft', 'accidental_damage', 'liquid_damage'] as const
export type CoverageType = (typeof COVERAGE_TYPES)[number]

export type PlanKind = 'subscription' | 'annual'

/** Rates and factors are basis points (1 bp = 0.01%), so pricing stays in integer arithmetic. */
export interface PlansTable {
  id: Generated<number>
  partner_id: number
  kind: PlanKind
  name: string
  /** Number of monthly installments (subscription plans); 1 for annual plans. */
  installments: number
  /** Subscription: monthly premium = LMI × rate. */
  monthly_rate_bp: number | null
  /** Subscription: franchise (deductible) = LMI × rate. */
  franchise_rate_bp: number | null
  /** Annual: premium = LMI × rate. */
  annual_rate_bp: number | null
  /** Annual: multiplies the premium when the device is used (10000 = no change). */
  used_factor_bp: number | null
  /** JSON array of strings. */
  coverages: string
  /** JSON array of CoverageType: the perils a claim may name. */
  coverage_types: Generated<string>
  /** A claim must be opened within this many days of the loss. */
  claim_notice_days: Generated<number>
  /** Claims approved in the 365 days before a loss, at most, per contract. */
  max_claims_per_year: Generated<number>
  /** The partner's default annual plan, used when `plan_id` is absent. */
  is_default: SqlBool
  active: SqlBool
  created_at: string
}
