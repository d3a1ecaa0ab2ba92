import { type RawBuilder, sql } from 'kysely'
import { type Db, isPostgres } from '../../db/database.js'

// The dashboard's sums (README, Operator console: Painel), each one indexed read of the period's
// rows grouped in the database: by UTC month, or by partner and plan for the loss ratio.

/** The UTC month (`YYYY-MM`) of an instant column: timestamptz on PostgreSQL, ISO text on SQLite. */
function monthOf(db: Db, column: string): RawBuilder<string> {
  return isPostgres(db)
    ? sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM')`
    : sql<string>`substr(${sql.ref(column)}, 1, 7)`
}

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
export async function premiumsByMonth(db: Db, { from, to }: Months) {
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
export async function collectedByPlan(db: Db, { from, to }: Months) {
  return db
    .selectFrom('premium_months')
    .select((eb) => ['partner_id', 'plan_id', eb.fn.sum<string>('collected').as('cents')])
    .where('month', '>=', from)
    .where('month', '<=', to)
    .groupBy(['partner_id', 'plan_id'])
    .execute()
}

/** Claims settled in the period per partner and plan: what was paid on them. */
export async function claimsPaidByPlan(db: Db, { start, end }: Period) {
  return db
    .selectFrom('claims')
    .select((eb) => ['partner_id', 'plan_id', eb.fn.sum<string>('payable_amount').as('cents')])
    .where('settled_at', '>=', start)
    .where('settled_at', '<', end)
    .groupBy(['partner_id', 'plan_id'])
    .execute()
}

/** Claims opened, approved, denied and settled per month. */
export async function claimsByMonth(db: Db, { start, end }: Period) {
  const count = (column: 'created_at' | 'decided_at' | 'settled_at', outcome?: 'approved' | 'denied') => {
    let query = db
      .selectFrom('claims')
      .select((eb) => [monthOf(db, column).as('month'), eb.fn.countAll<string>().as('count')])
      .where(column, '>=', start)
      .where(column, '<', end)
    if (outcome) query = query.where('outcome', '=', outcome)
    return query.groupBy(monthOf(db, column)).execute()
  }
  const [opened, approved, denied, settled] = await Promise.all([
    count('created_at'),
    count('decided_at', 'approved'),
    count('decided_at', 'denied'),
    count('settled_at'),
  ])
  return { opened, approved, denied, settled }
}

/**
 * Protections in force at `now`: subscriptions active (`pago`) whose end (`ends_on`, service zone)
 * is after `today`, and annual plans paid or protected whose cover ends after `now`.
 */
export async function activeProtections(db: Db, { now, today }: { now: string; today: string }) {
  const [subscriptions, annualPlans] = await Promise.all([
    db
      .selectFrom('subscriptions')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('status', '=', 'pago')
      .where('ends_on', '>', today)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('annual_plans')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('status', 'in', ['paid', 'protected'])
      .where('ends_at', '>', now)
      .executeTakeFirstOrThrow(),
  ])
  return { subscriptions: Number(subscriptions.count), annualPlans: Number(annualPlans.count) }
}

/** Names of these partners and plans. */
export async function namesOf(db: Db, partnerIds: number[], planIds: number[]) {
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
