import type { Insertable, Selectable } from 'kysely'
import type { Db, Trx } from '../../db/database.js'
import type { CustomersTable } from './customer.table.js'

export type CustomerRow = Selectable<CustomersTable>
export type NewCustomerRow = Insertable<CustomersTable>

/** Fails with a unique violation when the partner already has this document (the caller maps it). */
export async function insertCustomer(trx: Trx, values: NewCustomerRow): Promise<CustomerRow> {
  return trx.insertInto('customers').values(values).returningAll().executeTakeFirstOrThrow()
}

/** `document` must already be normalised: it is compared as stored. */
export async function findCustomerByDocument(
  db: Db,
  partnerId: number,
  document: string,
): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('document', '=', document)
    .executeTakeFirst()
}
