import type { Kysely } from 'kysely'

/**
 * A retry answers what its own first attempt did (docs/decisions.md, Safe retries): a first card
 * charge keeps the `Idempotency-Key` and fingerprint of the request that made it, and is kept once
 * recorded (`recorded_at`, purged with the keys after 24 h), so that the key's retry finds it and
 * answers its outcome; `card_mark` (the card's last four digits and expiry) tells a retry without
 * the key, with the same card, from a payment with another card. A sandbox clock advance keeps the key that started it and the offset it
 * goes to, so that its retry after a crash finishes that advance rather than starting another.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('card_attempts').addColumn('request_key', 'text').execute()
  await db.schema.alterTable('card_attempts').addColumn('request_fingerprint', 'text').execute()
  await db.schema.alterTable('card_attempts').addColumn('recorded_at', 'text').execute()
  await db.schema.alterTable('card_attempts').addColumn('card_mark', 'text').execute()
  await db.schema.alterTable('partners').addColumn('clock_advance_key', 'text').execute()
  await db.schema.alterTable('partners').addColumn('clock_advance_to', 'integer').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('partners').dropColumn('clock_advance_to').execute()
  await db.schema.alterTable('partners').dropColumn('clock_advance_key').execute()
  for (const column of ['card_mark', 'recorded_at', 'request_fingerprint', 'request_key'])
    await db.schema.alterTable('card_attempts').dropColumn(column).execute()
}
