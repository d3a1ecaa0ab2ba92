import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'
import { columnTypes } from './column-types.js'

/**
 * Refunds that are paid (README, Going live: card payments through Stripe): one row per confirmed cancellation of an annual plan paid
 * through the own gateway with a refund above 0, which the worker pays and retries. The ledger
 * gains the refund route and its outcomes, one row per attempt.
 *
 * Cancellations confirmed before this migration with such a refund become `failed` rows (never
 * paid, `last_error` says why): paying them now, unasked, could pay twice what an operator already
 * refunded by hand; `amparo refund retry PLAN_ID` pays one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await t
    .id(db.schema.createTable('annual_plan_refunds'))
    .addColumn('annual_plan_id', 'integer', (c) => c.notNull().unique().references('annual_plans.id'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('amount', isPostgres(db) ? 'bigint' : 'integer', (c) => c.notNull())
    .addColumn('payment_reference', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'succeeded', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', t.timestamp, (c) => c.notNull())
    .addColumn('give_up_at', t.timestamp, (c) => c.notNull())
    .addColumn('locked_until', t.timestamp)
    .addColumn('last_error', 'text')
    .addColumn('gateway_refund_id', 'text')
    .addColumn('refunded_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  // What the worker looks for: pending refunds whose attempt time has come.
  await db.schema
    .createIndex('annual_plan_refunds_due_idx')
    .on('annual_plan_refunds')
    .columns(['status', 'next_attempt_at'])
    .execute()
  await ledgerAllows(db, REFUND_ROUTES, REFUND_OUTCOMES)
  await sql`
    insert into annual_plan_refunds
      (annual_plan_id, partner_id, amount, payment_reference, status, next_attempt_at, give_up_at, last_error, created_at)
    select x.annual_plan_id, p.partner_id, x.refund_amount, p.transaction_id, 'failed',
      x.confirmed_at, x.confirmed_at, 'confirmed before refunds were paid', x.confirmed_at
    from annual_plan_cancellations x
    join payments p on p.annual_plan_id = x.annual_plan_id
      and p.route = 'card' and p.outcome = 'approved' and p.transaction_id is not null
    where x.status = 'confirmed' and x.refund_amount > 0`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from payments where route = 'refund'`.execute(db)
  await ledgerAllows(db, ROUTES, OUTCOMES)
  await db.schema.dropTable('annual_plan_refunds').execute()
}

const ROUTES = ['notification', 'card', 'recurrence']
const OUTCOMES = ['approved', 'declined', 'recorded']
const REFUND_ROUTES = [...ROUTES, 'refund']
const REFUND_OUTCOMES = [...OUTCOMES, 'refunded', 'failed']

const list = (values: string[]) => sql.join(values.map((v) => sql.lit(v)))

/**
 * Replaces the ledger's checks on `route` and `outcome`. PostgreSQL alters them in place; SQLite
 * cannot alter a check, so the table is rebuilt with the same columns and indexes.
 */
async function ledgerAllows(db: Kysely<unknown>, routes: string[], outcomes: string[]): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table payments drop constraint payments_route_check,
      drop constraint payments_outcome_check,
      add constraint payments_route_check check (route in (${list(routes)})),
      add constraint payments_outcome_check check (outcome in (${list(outcomes)}))`.execute(db)
    return
  }
  const t = columnTypes(db)
  await t
    .id(db.schema.createTable('payments_rebuilt'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('subscription_id', 'integer', (c) => c.references('subscriptions.id'))
    .addColumn('installment_id', 'integer', (c) => c.references('installments.id'))
    .addColumn('annual_plan_id', 'integer')
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull().check(sql`route in (${list(routes)})`))
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in (${list(outcomes)})`))
    .addColumn('decline_code', 'text')
    .addColumn('transaction_id', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  await sql`insert into payments_rebuilt select id, partner_id, subscription_id, installment_id,
    annual_plan_id, amount, route, outcome, decline_code, transaction_id, created_at from payments`.execute(
    db,
  )
  await db.schema.dropTable('payments').execute()
  await db.schema.alterTable('payments_rebuilt').renameTo('payments').execute()
  await db.schema.createIndex('payments_installment_idx').on('payments').column('installment_id').execute()
  await db.schema
    .createIndex('payments_one_success_per_installment')
    .on('payments')
    .column('installment_id')
    .unique()
    .where(sql.ref('outcome'), 'in', sql`('approved', 'recorded')`)
    .execute()
  await db.schema.createIndex('payments_annual_plan_idx').on('payments').column('annual_plan_id').execute()
}
