import { type Kysely, sql } from 'kysely'
import { columnTypes } from './column-types.js'

/**
 * A claim's deadline (README, Operator console: Sinistros; docs/decisions.md, Claim deadline):
 * `deadline_started_at`, the instant its last required document arrived and its 30 days started,
 * null while documents are awaited (the deadline suspended). The day it falls on depends on the
 * service's zone, which a migration does not read: the instant is kept, and the queue sorts by it
 * (a later start is a later deadline in any zone).
 *
 * Existing claims past `documents_pending` take their latest document's upload (their last
 * arrival: uploads stop at the decision), or their opening when they hold none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema.alterTable('claims').addColumn('deadline_started_at', t.timestamp).execute()
  await sql`update claims set deadline_started_at = coalesce(
      (select max(d.uploaded_at) from claim_documents d where d.claim_id = claims.id), claims.created_at)
    where status <> 'documents_pending'`.execute(db)
  // The queue's open claims by deadline, and the Painel's counts of those due and overdue.
  await db.schema
    .createIndex('claims_status_deadline')
    .on('claims')
    .columns(['status', 'deadline_started_at', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('claims_status_deadline').execute()
  await db.schema.alterTable('claims').dropColumn('deadline_started_at').execute()
}
