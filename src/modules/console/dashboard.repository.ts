import { type RawBuilder, sql } from 'kysely'
import type { Reader } from '../../db/database.js'

// The dashboard's sums (README, Operator console: the operator API behind the screens), grouped
// in the database by month of the service's zone, or by partner and plan for the loss ratio:
// premiums from the kept `premium_hours` (migration 0030), claims through indexed ranges. A month
// is given as its bounds, so each sum is one range read and a `case` naming each row's month.

/** A month and the keys it runs between (instants, or `premium_hours` hours): start included. */
export interface Span {
  month: string
  start: string
  end: string
}

export interface Period {
  start: string
  end: string
}

/** Each row's month by `value` (a column holding instants or hours): the first span it is before the end of. */
function monthCase(value: RawBuilder<unknown>, spans: Span[]): RawBuilder<string> {
  return sql<string>`case ${sql.join(
    spans.map((span) => sql`when ${value} < ${span.end} then ${span.month}`),
    sql` `,
  )} end`
}

/**
 * Premiums written (contracted, in full) and collected (the ledger, minus refunds) per month: a
 * range sum a month, so no row is sorted or grouped (a `case` over every hour of the period, grouped,
 * cost 20 × as much at 100,000 subscriptions).
 */
export async function premiumsByMonth(db: Reader, hours: Span[]) {
  if (hours.length === 0) return []
  const { rows } = await sql<{ month: string; written: string | null; collected: string | null }>`${sql.join(
    hours.map(
      (
        span,
      ) => sql`select cast(${span.month} as text) as month, sum(written) as written, sum(collected) as collected
        from premium_hours where hour >= ${span.start} and hour < ${span.end}`,
    ),
    sql` union all `,
  )}`.execute(db)
  return rows
}

/**
 * Premiums collected in the period per partner and plan (plan 0: ledger rows of no contract): for
 * each plan a range of the index premium_hours_plans, read alone, rather than every hour of the
 * period sorted by plan.
 */
export async function collectedByPlan(db: Reader, { start, end }: Period) {
  const { rows } = await sql<{ partner_id: number; plan_id: number; cents: string | null }>`
    select k.partner_id, k.plan_id, (select sum(h.collected) from premium_hours h
      where h.partner_id = k.partner_id and h.plan_id = k.plan_id and h.hour >= ${start} and h.hour < ${end}) as cents
    from (select partner_id, id as plan_id from plans union all select id, 0 from partners) k`.execute(db)
  return rows
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

/**
 * Claims owed at the period's end per partner and plan: approved before it and not settled by
 * then. Two indexed reads, as such a claim is either still approved or settled after the end (none
 * for a period ending after now); a plan may come in both, the caller adds them up.
 */
export async function claimsOwedByPlan(db: Reader, { end }: Pick<Period, 'end'>) {
  const owed = (status: 'approved' | 'settled') => {
    let query = db
      .selectFrom('claims')
      .select((eb) => ['partner_id', 'plan_id', eb.fn.sum<string>('payable_amount').as('cents')])
      .where('status', '=', status)
      .where('decided_at', '<', end)
    if (status === 'settled') query = query.where('settled_at', '>=', end)
    return query.groupBy(['partner_id', 'plan_id']).execute()
  }
  return (await Promise.all([owed('approved'), owed('settled')])).flat()
}

/**
 * The open claims' money and deadlines now, in one statement: those approved and not settled ("a
 * pagar") and their payable sum; those whose deadline's count started before `overdueBefore`
 * (overdue) or before `dueThisWeekBefore` (due this week: claim-deadline.rules.ts, deadlineBounds).
 */
export async function openClaimFigures(
  db: Reader,
  { overdueBefore, dueThisWeekBefore }: { overdueBefore: string; dueThisWeekBefore: string },
) {
  const running = sql`status in ('under_review', 'approved')`
  const { rows } = await sql<{ owed: string; owed_cents: string | null; overdue: string; due: string }>`select
    (select count(*) from claims where status = 'approved') as owed,
    (select sum(payable_amount) from claims where status = 'approved') as owed_cents,
    (select count(*) from claims where ${running} and deadline_started_at < ${overdueBefore}) as overdue,
    (select count(*) from claims where ${running} and deadline_started_at >= ${overdueBefore}
      and deadline_started_at < ${dueThisWeekBefore}) as due`.execute(db)
  const row = rows[0]
  return {
    owed: Number(row?.owed ?? 0),
    owedCents: Number(row?.owed_cents ?? 0),
    overdue: Number(row?.overdue ?? 0),
    dueThisWeek: Number(row?.due ?? 0),
  }
}

/** Claims opened, approved, denied and settled per month: one statement, four indexed ranges. */
export async function claimsByMonth(db: Reader, months: Span[]) {
  const first = months[0]
  const last = months[months.length - 1]
  if (!first || !last) return []
  const count = (column: 'created_at' | 'decided_at' | 'settled_at', what: string, outcome?: string) =>
    sql`select ${sql.lit(what)} as what, ${monthCase(sql.ref(column), months)} as month, count(*) as count
      from claims where ${sql.ref(column)} >= ${first.start} and ${sql.ref(column)} < ${last.end}
      ${outcome ? sql`and outcome = ${outcome}` : sql``}
      group by 2`
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
