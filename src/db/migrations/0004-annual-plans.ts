import { type Kysely, sql } from 'kysely'
import { columnTypes, falseValue } from './column-types.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await t
    .id(db.schema.createTable('annual_plans'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id'))
    .addColumn('plan_id', 'integer', (c) => c.notNull().references('plans.id'))
    .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id'))
    .addColumn('store_id', 'integer', (c) => c.references('shopkeepers.id'))
    .addColumn('imei', 'text', (c) => c.notNull())
    .addColumn('imei_2', 'text')
    .addColumn('is_used', t.bool, (c) => c.notNull().defaultTo(falseValue(db)))
    .addColumn('lmi', 'integer', (c) => c.notNull())
    .addColumn('premium', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('awaiting_payment', 'paid', 'protected', 'expired', 'canceled')`),
    )
    .addColumn('payment_method', 'text', (c) =>
      c.check(sql`payment_method in ('credit_card', 'slip', 'pix')`),
    )
    .addColumn('payment_installments', 'integer')
    .addColumn('card_brand', 'text')
    .addColumn('card_last4', 'text')
    .addColumn('policy_number', 'text', (c) => c.unique())
    .addColumn('paid_at', t.timestamp)
    .addColumn('starts_at', t.timestamp)
    .addColumn('ends_at', t.timestamp)
    .addColumn('locked_until', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('annual_plans_partner_idx')
    .on('annual_plans')
    .columns(['partner_id', 'id'])
    .execute()
  // The worker's clock: paid plans whose coverage starts, protected ones whose coverage ends.
  await db.schema
    .createIndex('annual_plans_clock_idx')
    .on('annual_plans')
    .columns(['status', 'starts_at'])
    .execute()

  await t
    .id(db.schema.createTable('annual_plan_cancellations'))
    .addColumn('annual_plan_id', 'integer', (c) => c.notNull().references('annual_plans.id'))
    .addColumn('protocol', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('requested', 'confirmed')`))
    .addColumn('reason', 'text')
    .addColumn('requested_at', t.timestamp, (c) => c.notNull())
    .addColumn('confirmed_at', t.timestamp)
    .addColumn('refund_amount', 'integer')
    .addColumn('refund_due_date', t.date)
    .execute()
  // One cancellation per plan: a repeated request returns the open one.
  await db.schema
    .createIndex('annual_plan_cancellations_plan_unique')
    .on('annual_plan_cancellations')
    .column('annual_plan_id')
    .unique()
    .execute()
  await db.schema.createIndex('payments_annual_plan_idx').on('payments').column('annual_plan_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('payments_annual_plan_idx').execute()
  await db.schema.dropTable('annual_plan_cancellations').execute()
  await db.schema.dropTable('annual_plans').execute()
}
