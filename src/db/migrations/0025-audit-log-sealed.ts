import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * The audit log stays append-only against the two statements its UPDATE and DELETE triggers do
 * not see (docs/decisions.md, Operator console):
 *
 * - SQLite's `INSERT OR REPLACE` (and `REPLACE`) deletes a conflicting row without firing a
 *   delete trigger (recursive triggers are off), so an insert over an existing id is refused;
 * - PostgreSQL's `TRUNCATE` fires no row or statement trigger but its own, so that is refused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`create trigger audit_log_no_truncate before truncate on audit_log
      for each statement execute function audit_log_append_only()`.execute(db)
  } else {
    await sql`create trigger audit_log_no_replace before insert on audit_log
      when exists (select 1 from audit_log where id = new.id)
      begin select raise(abort, 'audit_log is append-only'); end`.execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) await sql`drop trigger audit_log_no_truncate on audit_log`.execute(db)
  else await sql`drop trigger audit_log_no_replace`.execute(db)
}
