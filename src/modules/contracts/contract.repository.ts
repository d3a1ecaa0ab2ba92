import type { Insertable } from 'kysely'
import { sql } from 'kysely'
import { isPostgres, type Trx } from '../../db/database.js'
import type { PaymentsTable } from '../../db/tables/payment.js'

// The writes every contract shares: its payments ledger and its policy number's sequence.

/** Appends to the payments ledger (payments/payment.table.ts) of a contract: one row per charge attempt or payment notification, never updated. */
export async function recordPayment(trx: Trx, row: Insertable<PaymentsTable>): Promise<void> {
  await trx.insertInto('payments').values(row).execute()
}

/**
 * Takes the next number of the annual plans' id sequence without inserting a plan: a policy
 * number (`AMP-<year>-<number>`) is derived from it, so subscriptions and annual plans draw their
 * policy numbers from one sequence and no two contracts share one (docs/decisions.md, "Policy
 * numbers of subscriptions"). PostgreSQL: the identity column's sequence. SQLite: the table is
 * AUTOINCREMENT, so its counter in sqlite_sequence is what the next insert exceeds; one writer at
 * a time makes the read-and-bump safe.
 */
export async function nextPolicySerial(trx: Trx): Promise<number> {
  if (isPostgres(trx)) {
    const { rows } = await sql<{ serial: string | number }>`
      select nextval(pg_get_serial_sequence('annual_plans', 'id')) as serial`.execute(trx)
    return Number(rows[0]?.serial)
  }
  const { rows } = await sql<{ seq: number }>`
    update sqlite_sequence set seq = seq + 1 where name = 'annual_plans' returning seq`.execute(trx)
  if (rows[0]) return Number(rows[0].seq)
  await sql`insert into sqlite_sequence (name, seq) values ('annual_plans', 1)`.execute(trx)
  return 1
}
