import type { Kysely } from 'kysely'
import { columnTypes } from './column-types.js'

/**
 * The insured's own page (README, Portal do segurado):
 *
 * - who opened a claim (`opened_by`: the partner through its API, or the insured on the portal);
 * - the sign-in codes sent by e-mail, hashed, with their tries, per document and per address, so
 *   that the hourly limits are counted across processes;
 * - the portal's sessions, kept server-side like the console's (the cookie's token hashed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema
    .alterTable('claims')
    .addColumn('opened_by', 'text', (c) => c.notNull().defaultTo('partner'))
    .execute()

  await t
    .id(db.schema.createTable('portal_codes'))
    .addColumn('document', 'text', (c) => c.notNull())
    // Empty for a document nobody holds: its requests are counted all the same.
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('tries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('used_at', t.timestamp)
    .execute()
  await db.schema
    .createIndex('portal_codes_document')
    .on('portal_codes')
    .columns(['document', 'created_at'])
    .execute()
  await db.schema
    .createIndex('portal_codes_email')
    .on('portal_codes')
    .columns(['email', 'created_at'])
    .execute()

  await db.schema
    .createTable('portal_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_seen_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('ip', 'text')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('portal_sessions').execute()
  await db.schema.dropTable('portal_codes').execute()
  await db.schema.alterTable('claims').dropColumn('opened_by').execute()
}
