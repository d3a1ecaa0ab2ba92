import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'
import { columnTypes } from './column-types.js'

/**
 * PIX codes and boletos, and Stripe's own events (README, Going live: Stripe's events):
 *
 * - `payment_codes`: a PIX code of an installment or annual plan, or a boleto of an annual plan,
 *   as the gateway made it (its PaymentIntent in `gateway_reference`); at most one `pending` per
 *   installment and per plan (partial unique indexes), so two requests at once make one;
 * - `stripe_events`: the id of every Stripe event applied, written in the transaction of its
 *   effect, so a delivery that comes again applies nothing;
 * - `paid_with` on installments and annual plans (`card`, `pix`, `boleto`, `external`), filled for
 *   those paid already from the ledger: a card charge or the recurrence is `card`, a notification
 *   `external`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await t
    .id(db.schema.createTable('payment_codes'))
    .addColumn('partner_id', 'integer', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('installment_id', 'integer', (c) => c.references('installments.id'))
    .addColumn('annual_plan_id', 'integer', (c) => c.references('annual_plans.id'))
    .addColumn('amount', isPostgres(db) ? 'bigint' : 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('gateway_reference', 'text', (c) => c.notNull().unique())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('document_url', 'text')
    .addColumn('image_token', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('paid_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('payment_codes_pending_installment')
    .on('payment_codes')
    .unique()
    .column('installment_id')
    .where(sql<boolean>`status = 'pending' and installment_id is not null`)
    .execute()
  await db.schema
    .createIndex('payment_codes_pending_plan')
    .on('payment_codes')
    .unique()
    .column('annual_plan_id')
    .where(sql<boolean>`status = 'pending' and annual_plan_id is not null`)
    .execute()

  await db.schema
    .createTable('stripe_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('applied_at', t.timestamp, (c) => c.notNull())
    .execute()

  await db.schema.alterTable('installments').addColumn('paid_with', 'text').execute()
  await db.schema.alterTable('annual_plans').addColumn('paid_with', 'text').execute()
  await sql`update installments set paid_with = case when exists (select 1 from payments p
      where p.installment_id = installments.id and p.route in ('card', 'recurrence')
      and p.outcome = 'approved') then 'card' else 'external' end
    where status = 'paid'`.execute(db)
  await sql`update annual_plans set paid_with = case when exists (select 1 from payments p
      where p.annual_plan_id = annual_plans.id and p.route = 'card' and p.outcome = 'approved')
      then 'card' else 'external' end
    where paid_at is not null`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('annual_plans').dropColumn('paid_with').execute()
  await db.schema.alterTable('installments').dropColumn('paid_with').execute()
  await db.schema.dropTable('stripe_events').execute()
  await db.schema.dropTable('payment_codes').execute()
}
