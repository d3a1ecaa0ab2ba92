import type { Insertable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import type { PortalCodesTable, PortalSessionsTable } from '../../db/tables/portal.js'

/** The customer a sign-in code goes to: the latest on file with that document, under any partner. */
export async function latestCustomerWithDocument(db: Reader, document: string) {
  return db
    .selectFrom('customers')
    .select(['id', 'email'])
    .where('document', '=', document)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
}

/** The codes sent since `since` to a document or to an address, oldest first. */
export async function codesSince(trx: Trx, column: 'document' | 'email', value: string, since: string) {
  return trx
    .selectFrom('portal_codes')
    .select(['created_at'])
    .where(column, '=', value)
    .where('created_at', '>', since)
    .orderBy('created_at')
    .execute()
}

export async function insertCode(trx: Trx, row: Insertable<PortalCodesTable>): Promise<void> {
  await trx.insertInto('portal_codes').values(row).execute()
}

/** The document's latest code, whatever its state. */
export async function latestCode(db: Reader, document: string) {
  return db
    .selectFrom('portal_codes')
    .select(['id', 'code_hash', 'tries', 'expires_at', 'used_at'])
    .where('document', '=', document)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
}

/**
 * Counts one try of the code, if it is still the document's latest, unused and under `maxTries`:
 * concurrent tries each take one, and no more than `maxTries` are ever checked.
 */
export async function takeCodeTry(trx: Trx, id: number, maxTries: number): Promise<boolean> {
  const result = await trx
    .updateTable('portal_codes')
    .set((eb) => ({ tries: eb('tries', '+', 1) }))
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('tries', '<', maxTries)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Marks the code used; false when another request used it first. */
export async function useCode(trx: Trx, id: number, now: string): Promise<boolean> {
  const result = await trx
    .updateTable('portal_codes')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Codes past the window of every limit: nothing reads them any more. */
export async function deleteCodesBefore(trx: Trx, cutoff: string): Promise<void> {
  await trx.deleteFrom('portal_codes').where('created_at', '<', cutoff).execute()
}

export async function insertPortalSession(trx: Trx, row: PortalSessionsTable): Promise<void> {
  await trx.insertInto('portal_sessions').values(row).execute()
}

export async function findPortalSession(db: Reader, id: string) {
  return db.selectFrom('portal_sessions').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function touchPortalSession(trx: Trx, id: string, now: string): Promise<void> {
  await trx.updateTable('portal_sessions').set({ last_seen_at: now }).where('id', '=', id).execute()
}

export async function deletePortalSession(trx: Trx, id: string): Promise<void> {
  await trx.deleteFrom('portal_sessions').where('id', '=', id).execute()
}

export async function deletePortalSessionsEndedBefore(trx: Trx, idleCutoff: string, now: string) {
  await trx
    .deleteFrom('portal_sessions')
    .where((eb) => eb.or([eb('last_seen_at', '<', idleCutoff), eb('expires_at', '<=', now)]))
    .execute()
}

/** The insured's name as the latest customer with the document has it. */
export async function nameOfDocument(db: Reader, document: string) {
  const row = await db
    .selectFrom('customers')
    .select(['name', 'document_kind'])
    .where('document', '=', document)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ?? null
}

/** The CPF/CNPJ of a customer (whose sign-in link was used): a session is the document's. */
export async function documentOfCustomer(trx: Trx, customerId: number) {
  return trx.selectFrom('customers').select(['document']).where('id', '=', customerId).executeTakeFirst()
}
