import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'
import { columnTypes } from './column-types.js'

/**
 * Events (README, Events): the outbox every state change writes to in its own transaction, and what
 * the resources gained for them: `updated_at` on subscriptions and annual plans, the subscription's
 * cancellation reason as a code (the partner's free text moves to `cancel_comment`), and the
 * installment's last decline code.
 *
 * `position` is the event's place in the feed, given once its transaction has committed (see
 * event.repository.ts): null until then on PostgreSQL, set at insert on SQLite (one writer).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await t
    .id(db.schema.createTable('events'))
    .addColumn('public_id', 'text', (c) => c.notNull().unique())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('position', 'bigint', (c) => c.unique())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('events_partner_position')
    .on('events')
    .columns(['partner_id', 'position'])
    .execute()
  await db.schema
    .createIndex('events_unsequenced')
    .on('events')
    .column('id')
    .where(sql.ref('position'), 'is', null)
    .execute()
  await db.schema.createIndex('events_created_at').on('events').column('created_at').execute()

  await db.schema.alterTable('subscriptions').addColumn('updated_at', t.timestamp).execute()
  await db.schema.alterTable('subscriptions').addColumn('cancel_comment', 'text').execute()
  await db.schema.alterTable('installments').addColumn('last_decline_code', 'text').execute()
  await db.schema.alterTable('annual_plans').addColumn('updated_at', t.timestamp).execute()

  // The free-text reasons the service wrote become codes; anything else was the partner's words.
  await sql`update subscriptions set cancel_comment = cancel_reason,
      cancel_reason = 'partner_request'
    where status = 'canceled' and (cancel_reason is null
      or cancel_reason not in ('unpaid', 'recurrence declined'))`.execute(db)
  await sql`update subscriptions set cancel_reason = 'first_installment_unpaid'
    where cancel_reason = 'unpaid'`.execute(db)
  await sql`update subscriptions set cancel_reason = 'recurrence_failed'
    where cancel_reason = 'recurrence declined'`.execute(db)
  await sql`update subscriptions set updated_at = coalesce(canceled_at, created_at)`.execute(db)
  await sql`update annual_plans set updated_at = coalesce(paid_at, created_at)`.execute(db)
  // Declines recorded before the column existed.
  await sql`update installments set last_decline_code = (
      select p.decline_code from payments p
      where p.installment_id = installments.id and p.outcome = 'declined'
      order by p.id desc limit 1)
    where status in ('pending', 'refused')`.execute(db)
  if (isPostgres(db)) {
    await sql`alter table subscriptions alter column updated_at set not null`.execute(db)
    await sql`alter table annual_plans alter column updated_at set not null`.execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update subscriptions set cancel_reason = case cancel_reason
      when 'first_installment_unpaid' then 'unpaid'
      when 'recurrence_failed' then 'recurrence declined'
      else cancel_comment end`.execute(db)
  await db.schema.alterTable('annual_plans').dropColumn('updated_at').execute()
  await db.schema.alterTable('installments').dropColumn('last_decline_code').execute()
  await db.schema.alterTable('subscriptions').dropColumn('cancel_comment').execute()
  await db.schema.alterTable('subscriptions').dropColumn('updated_at').execute()
  await db.schema.dropTable('events').execute()
}
