import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'
import { columnTypes } from './column-types.js'

/**
 * The operator console (README, Operator console): its operators, their server-side sessions and
 * the append-only audit log of every operator action, from the console or the CLI.
 *
 * A session's id is the SHA-256 of its cookie's token, so a copy of the table opens no session.
 * The audit log refuses UPDATE and DELETE by trigger on both dialects: nothing in the service
 * changes a row once written, and a mistake in code cannot either.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await t
    .id(db.schema.createTable('operators'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'adjuster', 'viewer')`))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('totp_secret', 'text')
    .addColumn('totp_enrolled_at', t.timestamp)
    .addColumn('totp_last_step', 'integer')
    .addColumn('disabled_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('password_changed_at', t.timestamp, (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('operator_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('operator_id', 'integer', (c) => c.notNull().references('operators.id'))
    .addColumn('stage', 'text', (c) => c.notNull().check(sql`stage in ('password', 'done')`))
    .addColumn('totp_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_seen_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute()
  await db.schema
    .createIndex('operator_sessions_operator')
    .on('operator_sessions')
    .column('operator_id')
    .execute()

  await t
    .id(db.schema.createTable('audit_log'))
    .addColumn('at', t.timestamp, (c) => c.notNull())
    .addColumn('actor', 'integer', (c) => c.references('operators.id'))
    .addColumn('actor_label', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('record_type', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('ip', 'text')
    .execute()
  await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'id']).execute()
  await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor', 'id']).execute()

  if (isPostgres(db)) {
    await sql`create function audit_log_append_only() returns trigger language plpgsql as $$
      begin raise exception 'audit_log is append-only'; end $$`.execute(db)
    await sql`create trigger audit_log_append_only before update or delete on audit_log
      for each statement execute function audit_log_append_only()`.execute(db)
  } else {
    await sql`create trigger audit_log_no_update before update on audit_log
      begin select raise(abort, 'audit_log is append-only'); end`.execute(db)
    await sql`create trigger audit_log_no_delete before delete on audit_log
      begin select raise(abort, 'audit_log is append-only'); end`.execute(db)
  }
}
