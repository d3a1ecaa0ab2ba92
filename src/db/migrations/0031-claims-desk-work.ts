import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'
import { columnTypes } from './column-types.js'

/**
 * The claims desk's working day (README, Operator console: Sinistros):
 *
 * - the claim's latest request for documents (`documents_request` in the partner API): its kinds
 *   (JSON), message and instant, and the claim's last document id when it was made, so that only a
 *   document uploaded after the request answers it;
 * - the operator the claim is assigned to (`assignee_id`), indexed for "Meus sinistros";
 * - the internal notes, append-only like the audit log (refused UPDATE and DELETE by trigger);
 * - the audit log indexed by record, which the claim's activity feed reads.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema.alterTable('claims').addColumn('documents_request_kinds', 'text').execute()
  await db.schema.alterTable('claims').addColumn('documents_request_message', 'text').execute()
  await db.schema.alterTable('claims').addColumn('documents_requested_at', t.timestamp).execute()
  await db.schema.alterTable('claims').addColumn('documents_request_after', 'integer').execute()
  await db.schema
    .alterTable('claims')
    .addColumn('assignee_id', 'integer', (c) => c.references('operators.id'))
    .execute()
  await db.schema.createIndex('claims_assignee').on('claims').columns(['assignee_id', 'id']).execute()

  await t
    .id(db.schema.createTable('claim_notes'))
    .addColumn('claim_id', 'integer', (c) => c.notNull().references('claims.id'))
    .addColumn('author_id', 'integer', (c) => c.notNull().references('operators.id'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('claim_notes_claim').on('claim_notes').columns(['claim_id', 'id']).execute()
  if (isPostgres(db)) {
    await sql`create function claim_notes_append_only() returns trigger language plpgsql as $$
      begin raise exception 'claim_notes is append-only'; end $$`.execute(db)
    await sql`create trigger claim_notes_append_only before update or delete on claim_notes
      for each statement execute function claim_notes_append_only()`.execute(db)
  } else {
    await sql`create trigger claim_notes_no_update before update on claim_notes
      begin select raise(abort, 'claim_notes is append-only'); end`.execute(db)
    await sql`create trigger claim_notes_no_delete before delete on claim_notes
      begin select raise(abort, 'claim_notes is append-only'); end`.execute(db)
  }

  await db.schema
    .createIndex('audit_log_record')
    .on('audit_log')
    .columns(['record_type', 'record_id', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_log_record').execute()
  await db.schema.dropTable('claim_notes').execute()
  if (isPostgres(db)) await sql`drop function claim_notes_append_only()`.execute(db)
  await db.schema.dropIndex('claims_assignee').execute()
  for (const column of [
    'assignee_id',
    'documents_request_after',
    'documents_requested_at',
    'documents_request_message',
    'documents_request_kinds',
  ])
    await db.schema.alterTable('claims').dropColumn(column).execute()
}
