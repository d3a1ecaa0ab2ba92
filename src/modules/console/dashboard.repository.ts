import { sql } from 'kysely'
import type { Reader } from '../../db/database.js'
import { utcMonthOf } from '../../db/dialect-sql.js'

// The dashboard's sums (README, Operator console: the operator API behind the screens), grouped in the database by UTC month, or by
// partner and plan for the loss ratio: premiums from the kept `premium_months` (migration 0018),
// claims and protections through indexed ranges.

export interface Period {
  start: string
  end: string
}

/** The period's months, `YYYY-MM` (UTC), both included. */
export interface Months {
  from: string
  to: string
}

/**
 * Premiums written (contracted, in full) and collected (the ledger, minus refunds) per month, from
 * the kept `premium_months` (migration 0018).
 */
export async function premiumsByMonth(db: Reader, { from, to }: Months) {
  return db
    .selectFrom('premium_months')
    .select((eb) => [
      'month',
      eb.fn.sum<string>('written').as('written'),
      eb.fn.sum<string>('collected').as('collected'),
    ])
    .where('month', '>=', from)
    .where('month', '<=', to)
    .groupBy('month')
    .execute()
}

/** Premiums collected in the period per partner and plan (plan 0: ledger rows of no contract). */
export async function collectedByPlan(db: Reader, { from, to }: Months) {
  return db
    .selectFrom('premium_months')
    .select((eb) => ['partner_id', 'plan_id', eb.fn.sum<string>('collected').as('cents')])
    .where('month', '>=', from)
    .where('month', '<=', to)
    .groupBy(['partner_id', 'plan_id'])
    .execute()
}

/** Claims settled in the period per partner and plan: what was paid on them. */
export async function claimsPaidByPlan(db: Reader, { start, end }: Period) {
  return db
    .selectFrom('claims')
    .select((eb) => ['partner_id', 'plan_id', eb.fn.sum<string>('payable_amount').as('cents')])
    .where('settled_at', '>=', start)
    .where('settled_at', '<', end)
    .groupBy(['partner_id', 'plan_id'])
    .execute()
}

/** Claims opened, approved, denied and settled per month: one statement, four indexed ranges. */
export async function claimsByMonth(db: Reader, { start, end }: Period) {
  const count = (column: 'created_at' | 'decided_at' | 'settled_at', what: string, outcome?: string) =>
    sql`select ${sql.lit(what)} as what, ${utcMonthOf(db, column)} as month, count(*) as count from claims
      where ${sql.ref(column)} >= ${start} and ${sql.ref(column)} < ${end}
      ${outcome ? sql`and outcome = ${outcome}` : sql``}
      group by ${utcMonthOf(db, column)}`
  const { rows } = await sql<{
    what: 'opened' | 'approved' | 'denied' | 'settled'
    month: string
    count: string
  }>`
    ${count('created_at', 'opened')} union all ${count('decided_at', 'approved', 'approved')}
    union all ${count('decided_at', 'denied', 'denied')} union all ${count('settled_at', 'settled')}`.execute(
    db,
  )
  return rows
}

/**
 * Protections in force at `now`, in one statement: subscriptions active (`pago`: not `expired`,
 * which a partner's clock ahead may have recorded before `today`) whose end (`ends_on`, service
 * zone) is after `today`, and annual plans paid or protected whose cover ends after `now`.
 */
export async function activeProtections(db: Reader, { now, today }: { now: string; today: string }) {
  const { rows } = await sql<{ subscriptions: string; annual_plans: string }>`select
    (select count(*) from subscriptions where status = 'pago' and ends_on > ${today}) as subscriptions,
    (select count(*) from annual_plans where status in ('paid', 'protected') and ends_at > ${now}) as annual_plans`.execute(
    db,
  )
  const row = rows[0]
  return { subscriptions: Number(row?.subscriptions ?? 0), annualPlans: Number(row?.annual_plans ?? 0) }
}

/** Names of these partners and plans. */
export async function namesOf(db: Reader, partnerIds: number[], planIds: number[]) {
  const [partners, plans] = await Promise.all([
    partnerIds.length === 0
      ? []
      : db.selectFrom('partners').select(['id', 'name']).where('id', 'in', partnerIds).execute(),
    planIds.length === 0
      ? []
      : db.selectFrom('plans').select(['id', 'name']).where('id', 'in', planIds).execute(),
  ])
  return {
    partners: new Map(partners.map((p) => [p.id, p.name])),
    plans: new Map(plans.map((p) => [p.id, p.name])),
  }
}
