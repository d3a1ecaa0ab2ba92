import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * A subscription's expiry is stored as its status, as an annual plan's is (docs/decisions.md, "A
 * subscription ends"): `expired` joins the statuses the column accepts, the rows whose expiry was
 * recorded (`pago` with `expired_at`) become `expired`, and `expired_at` goes (the end's instant is
 * 00:00 of `ends_on`, and the expiry's `updated_at`). `subscriptions_unexpired` (status, ends_on,
 * expired_at) where `expired_at` is null becomes `subscriptions_status_end_idx` (status, ends_on):
 * the same one entry a contract writes, and the expiry job and the count of those in force still
 * read it by `status = 'pago'`.
 *
 * SQLite cannot alter a CHECK constraint: the table is rebuilt from its own definition with the
 * one check replaced, its indexes and trigger re-created from theirs.
 */
// Frozen here: the statuses at this migration, not the application's.
const BEFORE = ['pending', 'pago', 'canceled']
const AFTER = ['pending', 'pago', 'canceled', 'expired']

const check = (statuses: string[]) => `check (status in (${statuses.map((s) => `'${s}'`).join(', ')}))`

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('subscriptions_unexpired').execute()
  await statusesAllowed(db, BEFORE, AFTER)
  await sql`update subscriptions set status = 'expired' where status = 'pago' and expired_at is not null`.execute(
    db,
  )
  await db.schema.alterTable('subscriptions').dropColumn('expired_at').execute()
  await db.schema
    .createIndex('subscriptions_status_end_idx')
    .on('subscriptions')
    .columns(['status', 'ends_on'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('subscriptions_status_end_idx').execute()
  const timestamp = isPostgres(db) ? sql`timestamptz` : sql`text`
  await db.schema.alterTable('subscriptions').addColumn('expired_at', timestamp).execute()
  await sql`update subscriptions set status = 'pago', expired_at = updated_at where status = 'expired'`.execute(
    db,
  )
  await statusesAllowed(db, AFTER, BEFORE)
  await db.schema
    .createIndex('subscriptions_unexpired')
    .on('subscriptions')
    .columns(['status', 'ends_on', 'expired_at'])
    .where(sql.ref('expired_at'), 'is', null)
    .execute()
}

/** Replaces the check on `subscriptions.status` allowing `before` by one allowing `after`. */
async function statusesAllowed(db: Kysely<unknown>, before: string[], after: string[]): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table subscriptions drop constraint subscriptions_status_check,
      add constraint subscriptions_status_check ${sql.raw(check(after))}`.execute(db)
    return
  }
  const { rows: tables } = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'table' and name = 'subscriptions'`.execute(db)
  const definition = tables[0]?.sql ?? ''
  if (!definition.includes(check(before))) throw new Error('subscriptions.status has not the expected check')
  const rebuilt = definition
    .replace(check(before), check(after))
    .replace(/^CREATE TABLE "subscriptions"/, 'CREATE TABLE "subscriptions_rebuilt"')
  // Its indexes and trigger go with the table: re-created from their own definitions.
  const { rows: dependents } = await sql<{ sql: string }>`
    select sql from sqlite_master
    where tbl_name = 'subscriptions' and type in ('index', 'trigger') and sql is not null`.execute(db)

  // The steps SQLite documents for a change ALTER TABLE cannot make (lang_altertable.html, "Making
  // Other Kinds Of Table Schema Changes"): foreign keys off, so that dropping the table does not
  // delete what references it, and the old renaming, which leaves the references (the payments
  // trigger reads subscriptions) to resolve to the new table.
  await sql`pragma foreign_keys = off`.execute(db)
  await sql`pragma legacy_alter_table = on`.execute(db)
  try {
    await sql`begin immediate`.execute(db)
    try {
      await sql.raw(rebuilt).execute(db)
      await sql`insert into subscriptions_rebuilt select * from subscriptions`.execute(db)
      await sql`drop table subscriptions`.execute(db)
      await sql`alter table subscriptions_rebuilt rename to subscriptions`.execute(db)
      for (const { sql: statement } of dependents) await sql.raw(statement).execute(db)
      const { rows: broken } = await sql`pragma foreign_key_check`.execute(db)
      if (broken.length > 0) throw new Error(`rebuilding subscriptions broke ${broken.length} references`)
      await sql`commit`.execute(db)
    } catch (error) {
      await sql`rollback`.execute(db)
      throw error
    }
  } finally {
    await sql`pragma legacy_alter_table = off`.execute(db)
    await sql`pragma foreign_keys = on`.execute(db)
  }
}
