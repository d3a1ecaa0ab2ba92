import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'
import { columnTypes } from './column-types.js'

/**
 * A subscription ends (README, Subscriptions; docs/decisions.md, "A subscription ends"): `ends_on`,
 * the day after its last installment's month, in the service zone like the due dates; `expired_at`,
 * when its expiry was recorded with its `subscription.expired` event (null until then: the guard
 * that writes it once). The stored status stays `pago`: `expired` is what the clock makes of it.
 *
 * `ends_on` of existing rows: installment 1's due date (the contracting date) plus as many months
 * as installments, clamped like the due dates (without installment 1, the contracting day).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema.alterTable('subscriptions').addColumn('ends_on', 'text').execute()
  await db.schema.alterTable('subscriptions').addColumn('expired_at', t.timestamp).execute()

  const BATCH = 1000
  for (let after = 0; ; ) {
    const { rows } = await sql<{ id: number; count: number; contracted_on: string }>`
      select s.id, s.installments_count as count, i.due_date as contracted_on
      from subscriptions s join installments i on i.subscription_id = s.id and i.number = 1
      where s.id > ${after} and s.ends_on is null order by s.id limit ${BATCH}`.execute(db)
    for (const row of rows) {
      const endsOn = addMonthsClamped(row.contracted_on, Number(row.count))
      await sql`update subscriptions set ends_on = ${endsOn} where id = ${row.id}`.execute(db)
    }
    if (rows.length < BATCH) break
    after = Number(rows[rows.length - 1]?.id)
  }
  // A row without installment 1 (none is written so, but a restored or hand-made one may be):
  // its contracting day stands in for the first due date.
  const { rows: orphans } = await sql<{ id: number; count: number; created_at: string | Date }>`
    select id, installments_count as count, created_at from subscriptions where ends_on is null`.execute(db)
  for (const row of orphans) {
    const created = row.created_at instanceof Date ? row.created_at.toISOString() : String(row.created_at)
    const endsOn = addMonthsClamped(created.slice(0, 10), Number(row.count))
    await sql`update subscriptions set ends_on = ${endsOn} where id = ${row.id}`.execute(db)
  }
  if (isPostgres(db)) await sql`alter table subscriptions alter column ends_on set not null`.execute(db)

  // The worker's look-up: active subscriptions not yet recorded as expired, by end day.
  await db.schema
    .createIndex('subscriptions_to_expire')
    .on('subscriptions')
    .columns(['ends_on', 'id'])
    .where(sql.ref('expired_at'), 'is', null)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('subscriptions_to_expire').execute()
  await db.schema.alterTable('subscriptions').dropColumn('expired_at').execute()
  await db.schema.alterTable('subscriptions').dropColumn('ends_on').execute()
}

// Calendar-month arithmetic clamped to the month end (2026-01-31 + 1 → 2026-02-28), as
// shared/time.ts had it when this migration was written, frozen here: a migration gives every
// database the same rows, whatever the live code becomes.
function addMonthsClamped(date: string, months: number): string {
  const year = Number(date.slice(0, 4))
  const month = Number(date.slice(5, 7))
  const day = Number(date.slice(8, 10))
  const index = year * 12 + (month - 1) + months
  const targetYear = Math.floor(index / 12)
  const targetMonth = index - targetYear * 12 + 1
  const targetDay = Math.min(day, daysInMonth(targetYear, targetMonth))
  return `${String(targetYear).padStart(4, '0')}-${two(targetMonth)}-${two(targetDay)}`
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n))
