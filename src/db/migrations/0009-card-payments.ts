import type { Kysely } from 'kysely'
import { columnTypes } from './column-types.js'

/**
 * Card payments through a real gateway (README, Going live: card payments through Stripe): the gateway's customer of each Amparo
 * customer that paid by card. The saved card itself stays on the subscription: `card_token` holds
 * the gateway's payment-method id (Stripe's `pm_…`), with `card_brand` and `card_last4`; nothing
 * else of a card is stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema
    .createTable('gateway_customers')
    .addColumn('customer_id', 'integer', (c) => c.primaryKey().references('customers.id'))
    .addColumn('gateway_customer_id', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('gateway_customers').execute()
}
