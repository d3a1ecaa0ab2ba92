import { type Kysely, sql } from 'kysely'

/**
 * Fewer index entries a contract writes (docs/benchmarks.md, Against a9367e9), each index still
 * serving its reads:
 *
 * - `subscriptions_unexpired` (status, ends_on, expired_at) over subscriptions whose expiry is not
 *   recorded replaces `subscriptions_active_idx` (status, ends_on) and `subscriptions_to_expire`
 *   (ends_on, id), which SQLite's planner never chose; the expiry job no longer reads the expired
 *   ones again, and the queries that read it say `expired_at is null`;
 * - `subscriptions_created_at_idx` goes: the dashboard reads contracts from `premium_months`;
 * - a device's protection is held by a subscription or an annual plan, never both, and an
 *   installment is due for a charge only once a card is stored: their indexes hold the rows with
 *   a value only, which look-ups by value (`=`, `<=`) still use.
 */
// Each holds the rows whose last column has a value.
const NOT_NULL: [name: string, table: string, columns: string[]][] = [
  ['device_protections_subscription_idx', 'device_protections', ['subscription_id']],
  ['device_protections_annual_plan_idx', 'device_protections', ['annual_plan_id']],
  ['installments_due_idx', 'installments', ['status', 'next_attempt_on']],
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const name of ['subscriptions_active_idx', 'subscriptions_to_expire', 'subscriptions_created_at_idx'])
    await db.schema.dropIndex(name).execute()
  await db.schema
    .createIndex('subscriptions_unexpired')
    .on('subscriptions')
    // expired_at, null in every entry, is there so that SQLite counts those in force from the index alone.
    .columns(['status', 'ends_on', 'expired_at'])
    .where(sql.ref('expired_at'), 'is', null)
    .execute()
  for (const [name, table, columns] of NOT_NULL) {
    await db.schema.dropIndex(name).execute()
    await db.schema
      .createIndex(name)
      .on(table)
      .columns(columns)
      .where(sql.ref(columns.at(-1) as string), 'is not', null)
      .execute()
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name, table, columns] of NOT_NULL) {
    await db.schema.dropIndex(name).execute()
    await db.schema.createIndex(name).on(table).columns(columns).execute()
  }
  await db.schema.dropIndex('subscriptions_unexpired').execute()
  await db.schema
    .createIndex('subscriptions_created_at_idx')
    .on('subscriptions')
    .column('created_at')
    .execute()
  await db.schema
    .createIndex('subscriptions_to_expire')
    .on('subscriptions')
    .columns(['ends_on', 'id'])
    .where(sql.ref('expired_at'), 'is', null)
    .execute()
  await db.schema
    .createIndex('subscriptions_active_idx')
    .on('subscriptions')
    .columns(['status', 'ends_on'])
    .execute()
}
