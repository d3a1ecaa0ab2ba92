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

/** Premiums written (contracted) per month: subscriptions' installments in full, annual plans' premium. */
export async function writtenByMonth(db: Db, { start, end }: Period) {
  const [subscriptions, annualPlans] = await Promise.all([
    db
      .selectFrom('subscriptions')
      .select((eb) => [
        monthOf(db, 'created_at').as('month'),
        eb.fn.sum<string>(sql`monthly_premium * installments_count`).as('cents'),
      ])
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy(monthOf(db, 'created_at'))
      .execute(),
    db
      .selectFrom('annual_plans')
      .select((eb) => [monthOf(db, 'created_at').as('month'), eb.fn.sum<string>('premium').as('cents')])
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy(monthOf(db, 'created_at'))
      .execute(),
  ])
  return [...subscriptions, ...annualPlans]
}

/** Signed amount of a ledger row for what was collected: approved or recorded payments in, refunds out. */
const collectedAmount = sql<number>`case when p.outcome = 'refunded' then -p.amount else p.amount end`
const COLLECTING = ['approved', 'recorded', 'refunded'] as const

/** Premiums collected per month, from the payments ledger. */
export async function collectedByMonth(db: Db, { start, end }: Period) {
  return db
    .selectFrom('payments as p')
    .select((eb) => [monthOf(db, 'p.created_at').as('month'), eb.fn.sum<string>(collectedAmount).as('cents')])
    .where('p.created_at', '>=', start)
    .where('p.created_at', '<', end)
    .where('p.outcome', 'in', COLLECTING)
    .groupBy(monthOf(db, 'p.created_at'))
    .execute()
}

/** Premiums collected in the period per partner and plan (the contract's plan). */
export async function collectedByPlan(db: Db, { start, end }: Period) {
  return db
    .selectFrom('payments as p')
    .leftJoin('subscriptions as s', 's.id', 'p.subscription_id')
    .leftJoin('annual_plans as a', 'a.id', 'p.annual_plan_id')
    .select((eb) => [
      'p.partner_id',
      eb.fn.coalesce('s.plan_id', 'a.plan_id').as('plan_id'),
      eb.fn.sum<string>(collectedAmount).as('cents'),
    ])
    .where('p.created_at', '>=', start)
    .where('p.created_at', '<', end)
    .where('p.outcome', 'in', COLLECTING)
    .groupBy(['p.partner_id', sql`coalesce(s.plan_id, a.plan_id)`])
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
