import type { Insertable, Selectable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'
import type { CustomersTable } from '../../db/tables/customer.js'
import { nameWords } from '../../shared/text.js'

export type CustomerRow = Selectable<CustomersTable>
export type NewCustomerRow = Insertable<CustomersTable>

/** Fails with a unique violation when the partner already has this document (the caller maps it). */
export async function insertCustomer(trx: Trx, values: NewCustomerRow): Promise<CustomerRow> {
  const customer = await trx.insertInto('customers').values(values).returningAll().executeTakeFirstOrThrow()
  // The words the console's search by name looks up (migration 0029).
  const words = nameWords(customer.name)
  if (words.length > 0)
    await trx
      .insertInto('customer_name_words')
      .values(words.map((word) => ({ word, customer_id: customer.id })))
      .execute()
  return customer
}

// Named columns, not `*`: on PostgreSQL these run as named prepared statements, which a column
// added by a later migration would break (a changed result type) until the process restarts.
const COLUMNS = [
  'id',
  'partner_id',
  'name',
  'document',
  'document_kind',
  'email',
  'phone',
  'street',
  'number',
  'complement',
  'zipcode',
  'neighborhood',
  'city',
  'state',
  'created_at',
] as const satisfies readonly (keyof CustomersTable)[]

// Compiled once (see prepared()): a contract looks its customer up on every call.
const customerById = prepared((db: Reader, partnerId: number, id: number) =>
  db.selectFrom('customers').select(COLUMNS).where('partner_id', '=', partnerId).where('id', '=', id),
)
const customerByDocument = prepared((db: Reader, partnerId: number, document: string) =>
  db
    .selectFrom('customers')
    .select(COLUMNS)
    .where('partner_id', '=', partnerId)
    .where('document', '=', document),
)

/** The partner's customer with this id; undefined for another partner's. */
export async function findCustomer(
  db: Reader,
  partnerId: number,
  id: number,
): Promise<CustomerRow | undefined> {
  return (await customerById(db, partnerId, id))[0]
}

/** `document` must already be normalised: it is compared as stored. */
export async function findCustomerByDocument(
  db: Reader,
  partnerId: number,
  document: string,
): Promise<CustomerRow | undefined> {
  return (await customerByDocument(db, partnerId, document))[0]
}
