import type { Kysely } from 'kysely'
import { isPostgres } from '../database.js'
import { columnTypes } from './column-types.js'

/**
 * Chargebacks Stripe reports (`charge.dispute.created` / `.closed`): one row per Stripe dispute, on
 * the ledger row of the charge it disputes, `disputed` while open and `won` or `lost` once closed
 * (README, Going live: Stripe's events).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await t
    .id(db.schema.createTable('payment_disputes'))
    .addColumn('gateway_dispute_id', 'text', (c) => c.notNull().unique())
    .addColumn('partner_id', 'integer', (c) => c.notNull())
    .addColumn('payment_id', 'integer', (c) => c.notNull().references('payments.id'))
    .addColumn('amount', isPostgres(db) ? 'bigint' : 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('evidence_due_by', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('payment_disputes_due')
    .on('payment_disputes')
    .columns(['evidence_due_by', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('payment_disputes').execute()
}
