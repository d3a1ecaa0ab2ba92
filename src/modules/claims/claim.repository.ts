import type { Insertable, Selectable } from 'kysely'
import type { Db, Trx } from '../../db/database.js'
import { type PageWindow, pageByIds } from '../../db/page.js'
import type { ClaimDocumentsTable, ClaimStatus, ClaimsTable } from './claim.table.js'

export type ClaimRow = Selectable<ClaimsTable>
export type ClaimDocumentRow = Selectable<ClaimDocumentsTable>

/**
 * The next number of `year`, race-free: the year's row is incremented by an upsert, which on
 * PostgreSQL holds the row until the transaction ends (a concurrent opening waits and then draws
 * the next one) and on SQLite runs under the one writer.
 */
export async function nextClaimSequence(trx: Trx, year: number): Promise<number> {
  const { last } = await trx
    .insertInto('claim_numbers')
    .values({ year, last: 1 })
    .onConflict((oc) => oc.column('year').doUpdateSet((eb) => ({ last: eb('claim_numbers.last', '+', 1) })))
    .returning('last')
    .executeTakeFirstOrThrow()
  return last
}

export async function insertClaim(trx: Trx, values: Insertable<ClaimsTable>): Promise<number> {
  const { id } = await trx.insertInto('claims').values(values).returning('id').executeTakeFirstOrThrow()
  return id
}

/** A claim with what its resource shows besides documents: the customer and the model. */
function views(db: Db) {
  return db
    .selectFrom('claims as cl')
    .innerJoin('customers as c', 'c.id', 'cl.customer_id')
    .innerJoin('models as m', 'm.id', 'cl.model_id')
    .selectAll('cl')
    .select(['c.name as customer_name', 'c.document as current_customer_document', 'm.name as model_name'])
}

export type ClaimView = Awaited<ReturnType<ReturnType<typeof views>['executeTakeFirstOrThrow']>>

/** The claim when it is this partner's. */
export async function findClaimView(db: Db, partnerId: number, id: number): Promise<ClaimView | undefined> {
  return views(db).where('cl.partner_id', '=', partnerId).where('cl.id', '=', id).executeTakeFirst()
}

/** A claim's view by id alone, whoever's it is: for its events and the operator's commands. */
export async function findClaimViewById(db: Db, id: number): Promise<ClaimView | undefined> {
  return views(db).where('cl.id', '=', id).executeTakeFirst()
}

/** The claim row alone, when it is this partner's. */
export async function findClaimRow(db: Db, partnerId: number, id: number): Promise<ClaimRow | undefined> {
  return db
    .selectFrom('claims')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** Documents' metadata (never the bytes) of these claims, oldest first. */
export async function listDocumentsOf(db: Db, claimIds: number[]): Promise<ClaimDocumentRow[]> {
  if (claimIds.length === 0) return []
  return db
    .selectFrom('claim_documents')
    .selectAll()
    .where('claim_id', 'in', claimIds)
    .orderBy('claim_id')
    .orderBy('id')
    .execute()
}

/**
 * Moves a claim from one of `from` to `to`, setting `changes` too; the status condition is the
 * guard, so of two concurrent transitions exactly one updates the row. False when it was not in `from`.
 */
export async function transitionClaim(
  trx: Trx,
  id: number,
  from: readonly ClaimStatus[],
  to: ClaimStatus,
  changes: Partial<Omit<Insertable<ClaimsTable>, 'id' | 'status'>> & { updated_at: string },
): Promise<boolean> {
  const result = await trx
    .updateTable('claims')
    .set({ ...changes, status: to })
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export interface ClaimFilter {
  status?: ClaimStatus
  subscriptionId?: number
  annualPlanId?: number
  /** Normalised. */
  customerDocument?: string
}

function matching(db: Db, partnerId: number, filter: ClaimFilter) {
  let query = db.selectFrom('claims as cl').where('cl.partner_id', '=', partnerId)
  if (filter.status) query = query.where('cl.status', '=', filter.status)
  if (filter.subscriptionId !== undefined)
    query = query.where('cl.subscription_id', '=', filter.subscriptionId)
  if (filter.annualPlanId !== undefined) query = query.where('cl.annual_plan_id', '=', filter.annualPlanId)
  if (filter.customerDocument !== undefined) {
    query = query.where('cl.customer_document', '=', filter.customerDocument)
  }
  return query
}

/** The partner's claims matching the filter, newest first: a page of ids, then only its rows joined. */
export async function listClaimViews(db: Db, partnerId: number, filter: ClaimFilter, page: PageWindow) {
  return pageByIds(
    matching(db, partnerId, filter),
    (query) => query.select('cl.id'),
    page,
    (pageIds) =>
      views(db)
        .where('cl.partner_id', '=', partnerId)
        .where('cl.id', 'in', pageIds)
        .orderBy('cl.id', 'desc')
        .execute(),
  )
}
