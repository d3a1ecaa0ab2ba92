import type { Kysely } from 'kysely'
import { sql } from 'kysely'
import { columnTypes } from './column-types.js'

/**
 * Card payments that survive a crash and two databases on one Stripe account (README, "Going
 * live"): `settings` keeps the deployment's random namespace of gateway idempotency keys;
 * `card_attempts` holds a first charge from just before its gateway call until its outcome is
 * recorded, so that an unrecorded one can be replayed (the card itself is never stored, only the
 * gateway's payment method); `card_checks` records card verifications (card updates), whose
 * declines count towards the card-testing limit with the ledger's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute()

  await t
    .id(db.schema.createTable('card_attempts'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('purpose', 'text', (c) =>
      c.notNull().check(sql`purpose in ('first_installment', 'annual_plan')`),
    )
    .addColumn('installment_id', 'integer', (c) => c.references('installments.id'))
    .addColumn('annual_plan_id', 'integer')
    .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('installments', 'integer', (c) => c.notNull())
    .addColumn('gateway_customer_id', 'text', (c) => c.notNull())
    .addColumn('payment_method', 'text', (c) => c.notNull())
    .addColumn('card_brand', 'text', (c) => c.notNull())
    .addColumn('card_last4', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('card_attempts_installment_idx')
    .on('card_attempts')
    .column('installment_id')
    .execute()
  await db.schema
    .createIndex('card_attempts_annual_plan_idx')
    .on('card_attempts')
    .column('annual_plan_id')
    .execute()

  await t
    .id(db.schema.createTable('card_checks'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('subscription_id', 'integer', (c) => c.notNull().references('subscriptions.id'))
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('approved', 'declined')`))
    .addColumn('decline_code', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('card_checks_subscription_idx')
    .on('card_checks')
    .columns(['subscription_id', 'created_at'])
    .execute()
  await db.schema
    .createIndex('card_checks_partner_idx')
    .on('card_checks')
    .columns(['partner_id', 'created_at'])
    .execute()
  // The card-testing limit counts a partner's declined attempts of the last day.
  await db.schema
    .createIndex('payments_partner_created_idx')
    .on('payments')
    .columns(['partner_id', 'created_at'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('payments_partner_created_idx').execute()
  for (const table of ['card_checks', 'card_attempts', 'settings']) await db.schema.dropTable(table).execute()
}
