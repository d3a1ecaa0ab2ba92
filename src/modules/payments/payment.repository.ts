import type { Insertable } from 'kysely'
import type { Trx } from '../../db/database.js'
import type { PaymentsTable } from '../../db/tables/payment.js'

/** Appends to the ledger: one row per charge attempt or payment notification, never updated. */
export async function recordPayment(trx: Trx, row: Insertable<PaymentsTable>): Promise<void> {
  await trx.insertInto('payments').values(row).execute()
}
