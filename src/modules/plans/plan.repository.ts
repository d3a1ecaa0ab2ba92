import type { Insertable, NotNull } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'
import type { PlanKind, PlansTable } from '../../db/tables/plan.js'

export interface SubscriptionPlanRow {
  id: number
  name: string
  installments: number
  /** JSON array of strings. */
  coverages: string
  monthly_rate_bp: number
  franchise_rate_bp: number
  /** JSON array of CoverageType. */
  coverage_types: string
  claim_notice_days: number
  max_claims_per_year: number
}

/** An annual plan as a product the partner sells (its rates), not one contracted (`AnnualPlanRow`). */
export interface AnnualProductRow {
  id: number
  name: string
  coverages: string
  annual_rate_bp: number
  used_factor_bp: number
  /** Franchise (deductible) = LMI × rate, fixed at contracting; null → none. */
  franchise_rate_bp: number | null
}

/** Plans the partner sells now: inactive ones stay for the contracts made with them. */
function activePlans(db: Reader, partnerId: number, kind: PlanKind) {
  return db
    .selectFrom('plans')
    .where('partner_id', '=', partnerId)
    .where('kind', '=', kind)
    .where('active', '=', true)
}

// `createPlan` requires the rates of the plan's kind, so they are never null on these rows.
function subscriptionPlans(db: Reader, partnerId: number) {
  return activePlans(db, partnerId, 'subscription')
    .select([
      'id',
      'name',
      'installments',
      'coverages',
      'monthly_rate_bp',
      'franchise_rate_bp',
      'coverage_types',
      'claim_notice_days',
      'max_claims_per_year',
    ])
    .$narrowType<{ monthly_rate_bp: NotNull; franchise_rate_bp: NotNull }>()
}

function annualPlans(db: Reader, partnerId: number) {
  return activePlans(db, partnerId, 'annual')
    .select(['id', 'name', 'coverages', 'annual_rate_bp', 'used_factor_bp', 'franchise_rate_bp'])
    .$narrowType<{ annual_rate_bp: NotNull; used_factor_bp: NotNull }>()
}

// The plan lookups run on every quotation and contract: built and compiled once (see prepared()).
const subscriptionPlanList = prepared((db: Reader, partnerId: number) =>
  subscriptionPlans(db, partnerId).orderBy('id'),
)
const subscriptionPlan = prepared((db: Reader, partnerId: number, planId: number) =>
  subscriptionPlans(db, partnerId).where('id', '=', planId),
)
const annualPlan = prepared((db: Reader, partnerId: number, planId: number) =>
  annualPlans(db, partnerId).where('id', '=', planId),
)
// true sorts after false on both databases (SQLite stores 1 and 0), so descending puts it first.
const defaultAnnualPlan = prepared((db: Reader, partnerId: number) =>
  annualPlans(db, partnerId).orderBy('is_default', 'desc').orderBy('id').limit(1),
)

export async function listSubscriptionPlans(db: Reader, partnerId: number): Promise<SubscriptionPlanRow[]> {
  return subscriptionPlanList(db, partnerId)
}

export async function findSubscriptionPlan(
  db: Reader,
  partnerId: number,
  planId: number,
): Promise<SubscriptionPlanRow | undefined> {
  return (await subscriptionPlan(db, partnerId, planId))[0]
}

export async function findAnnualPlan(
  db: Reader,
  partnerId: number,
  planId: number,
): Promise<AnnualProductRow | undefined> {
  return (await annualPlan(db, partnerId, planId))[0]
}

/** The plan used when none is named: the default one, else the oldest active annual plan. */
export async function findDefaultAnnualPlan(
  db: Reader,
  partnerId: number,
): Promise<AnnualProductRow | undefined> {
  return (await defaultAnnualPlan(db, partnerId))[0]
}

/** The partner's annual plans stop being the default (a new default is about to be added). */
export async function clearDefaultAnnualPlan(trx: Trx, partnerId: number): Promise<void> {
  await trx
    .updateTable('plans')
    .set({ is_default: false })
    .where('partner_id', '=', partnerId)
    .where('kind', '=', 'annual')
    .execute()
}

export async function insertPlan(trx: Trx, row: Insertable<PlansTable>) {
  return trx.insertInto('plans').values(row).returningAll().executeTakeFirstOrThrow()
}
