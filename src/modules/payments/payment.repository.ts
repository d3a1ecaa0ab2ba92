import type { Insertable } from 'kysely'
import type { Trx } from '../../db/database.js'
import type { PaymentsTable } from './payment.table.js'

/** Appends to the ledger; rows are never updated or deleted. */
export async function recordPayment(trx: Trx, row: Insertable<PaymentsTable>): Promise<void> {
  await trx.insertInto('payments').values(row).execute()
}
