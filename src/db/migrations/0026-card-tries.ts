import type { Kysely } from 'kysely'
import { columnTypes } from './column-types.js'

/**
 * `card_tries`: a card attempt on a contract from just before its gateway call until it ends. The
 * card-testing limit counts these with the day's declines, under the contract's lock, so that many
 * attempts at once cannot all pass a check made before any of them is declined (README, "Going
 * live: card payments through Stripe").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await t
    .id(db.schema.createTable('card_tries'))
    .addColumn('partner_id', 'integer', (c) => c.notNull())
    .addColumn('subscription_id', 'integer')
    .addColumn('annual_plan_id', 'integer')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('card_tries').execute()
}
