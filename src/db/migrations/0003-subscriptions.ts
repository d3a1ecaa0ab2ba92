import { type Kysely, sql } from 'kysely'
import { columnTypes, falseValue } from './column-types.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await t
    .id(db.schema.createTable('subscriptions'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id'))
    .addColumn('plan_id', 'integer', (c) => c.notNull().references('plans.id'))
    .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id'))
    .addColumn('store_id', 'integer', (c) => c.references('shopkeepers.id'))
    .addColumn('serial_number', 'text')
    .addColumn('second_serial_number', 'text')
    .addColumn('is_used', t.bool, (c) => c.notNull().defaultTo(falseValue(db)))
    .addColumn('lmi', 'integer', (c) => c.notNull())
    .addColumn('monthly_premium', 'integer', (c) => c.notNull())
    .addColumn('franchise', 'integer', (c) => c.notNull())
    .addColumn('installments_count', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'pago', 'canceled')`))
    .addColumn('origin', 'text')
    .addColumn('card_token', 'text')
    .addColumn('card_brand', 'text')
    .addColumn('card_last4', 'text')
    .addColumn('canceled_at', t.timestamp)
    .addColumn('cancel_reason', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  // Newest first per partner, optionally by status: the list's order and filter.
  await db.schema
    .createIndex('subscriptions_partner_idx')
    .on('subscriptions')
    .columns(['partner_id', 'id'])
    .execute()
  await db.schema
    .createIndex('subscriptions_partner_status_idx')
    .on('subscriptions')
    .columns(['partner_id', 'status', 'id'])
    .execute()
  await db.schema
    .createIndex('subscriptions_customer_idx')
    .on('subscriptions')
    .columns(['customer_id', 'id'])
    .execute()

  await t
    .id(db.schema.createTable('installments'))
    .addColumn('subscription_id', 'integer', (c) => c.notNull().references('subscriptions.id'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('due_date', t.date, (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'paid', 'refused', 'canceled')`),
    )
    .addColumn('paid_at', t.timestamp)
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_on', t.date)
    .addColumn('locked_until', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('installments_subscription_number_unique', ['subscription_id', 'number'])
    .execute()
  // What the recurrence looks for: pending installments whose attempt day has come.
  await db.schema
    .createIndex('installments_due_idx')
    .on('installments')
    .columns(['status', 'next_attempt_on'])
    .execute()

  await t
    .id(db.schema.createTable('payments'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('subscription_id', 'integer', (c) => c.references('subscriptions.id'))
    .addColumn('installment_id', 'integer', (c) => c.references('installments.id'))
    .addColumn('annual_plan_id', 'integer')
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('route', 'text', (c) =>
      c.notNull().check(sql`route in ('notification', 'card', 'recurrence')`),
    )
    .addColumn('outcome', 'text', (c) =>
      c.notNull().check(sql`outcome in ('approved', 'declined', 'recorded')`),
    )
    .addColumn('decline_code', 'text')
    .addColumn('transaction_id', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('payments_installment_idx').on('payments').column('installment_id').execute()
  // The database itself refuses a second successful payment of one installment.
  await db.schema
    .createIndex('payments_one_success_per_installment')
    .on('payments')
    .column('installment_id')
    .unique()
    .where(sql.ref('outcome'), 'in', sql`('approved', 'recorded')`)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['payments', 'installments', 'subscriptions'])
    await db.schema.dropTable(table).execute()
}
