import type { Insertable, Selectable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import { intRange } from '../../db/database.js'
import { type PageWindow, pageByIds } from '../../db/page.js'
import { insertReturningId, prepared } from '../../db/prepared.js'
import type { ClaimDocumentsTable, ClaimStatus, ClaimsTable, FraudSignal } from '../../db/tables/claim.js'

export type ClaimRow = Selectable<ClaimsTable>
/** A document's metadata, as its resource shows it (its bytes' upload is the repository's business). */
export type ClaimDocumentRow = Omit<Selectable<ClaimDocumentsTable>, 'upload_id'>

/**
 * The next number of `year`, race-free: the year's row is incremented by an upsert, which on
 * PostgreSQL holds the row until the transaction ends (a concurrent opening waits and then draws
 * the next one) and on SQLite runs under the one writer.
 */
const claimNumberUpsert = prepared((trx: Trx, year: number) =>
  trx
    .insertInto('claim_numbers')
    .values({ year, last: 1 })
    .onConflict((oc) => oc.column('year').doUpdateSet((eb) => ({ last: eb('claim_numbers.last', '+', 1) })))
    .returning('last'),
)

export async function nextClaimSequence(trx: Trx, year: number): Promise<number> {
  const [row] = await claimNumberUpsert(trx, year)
  if (!row) throw new Error(`no claim number drawn for ${year}`)
  return row.last
}

const claimCountUpsert = prepared((trx: Trx, partnerId: number) =>
  trx
    .insertInto('partner_claim_counts')
    .values({ partner_id: partnerId, total: 1 })
    .onConflict((oc) =>
      oc.column('partner_id').doUpdateSet((eb) => ({ total: eb('partner_claim_counts.total', '+', 1) })),
    )
    .returning('total'),
)

/** Inserts the claim, numbered after the partner's last one (its counter incremented by an upsert). */
export async function insertClaim(trx: Trx, values: Insertable<ClaimsTable>): Promise<number> {
  const [counter] = await claimCountUpsert(trx, values.partner_id)
  if (!counter) throw new Error(`no claim count for partner ${values.partner_id}`)
  return insertReturningId(trx, 'claims', { ...values, partner_seq: counter.total })
}

/** A claim with what its resource shows besides documents: the customer and the model. */
function views(db: Reader) {
  return db
    .selectFrom('claims as cl')
    .innerJoin('customers as c', 'c.id', 'cl.customer_id')
    .innerJoin('models as m', 'm.id', 'cl.model_id')
    .selectAll('cl')
    .select(['c.name as customer_name', 'c.document as current_customer_document', 'm.name as model_name'])
}

export type ClaimView = Awaited<ReturnType<ReturnType<typeof views>['executeTakeFirstOrThrow']>>

/** What a claim's resource shows (claim.mapper.ts): a view, or a row of the unfiltered page. */
export type ClaimResourceRow = Pick<
  ClaimView,
  ColumnOf<(typeof RESOURCE_COLUMNS)[number]> | 'customer_name' | 'current_customer_document' | 'model_name'
>
type ColumnOf<T> = T extends `cl.${infer C extends keyof ClaimView}` ? C : never

/** The claim when it is this partner's. */
export async function findClaimView(
  db: Reader,
  partnerId: number,
  id: number,
): Promise<ClaimView | undefined> {
  return views(db).where('cl.partner_id', '=', partnerId).where('cl.id', '=', id).executeTakeFirst()
}

/** A claim's view by id alone, whoever's it is: for its events and the operator's commands. */
export async function findClaimViewById(db: Reader, id: number): Promise<ClaimView | undefined> {
  const [view] = await claimViewById(db, id)
  return view
}
const claimViewById = prepared((db: Reader, id: number) => views(db).where('cl.id', '=', id))

/** One claim's documents' metadata (never the bytes), oldest first. */
export const listDocumentsOfClaim = prepared((db: Reader, claimId: number) =>
  db.selectFrom('claim_documents').selectAll().where('claim_id', '=', claimId).orderBy('id'),
)

/** The claim row alone, when it is this partner's. */
export async function findClaimRow(db: Reader, partnerId: number, id: number): Promise<ClaimRow | undefined> {
  return db
    .selectFrom('claims')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** Documents' metadata (never the bytes) of these claims, oldest first. */
async function listDocumentsOf(db: Reader, claimIds: number[]): Promise<ClaimDocumentRow[]> {
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

/** Replaces the claim's fraud signals (JSON, as the claim holds them): the caller decided them. */
export async function setFraudSignals(trx: Trx, id: number, signals: readonly FraudSignal[]): Promise<void> {
  await trx
    .updateTable('claims')
    .set({ fraud_signals: JSON.stringify(signals) })
    .where('id', '=', id)
    .execute()
}

export interface ClaimFilter {
  status?: ClaimStatus
  subscriptionId?: number
  annualPlanId?: number
  /** Normalised. */
  customerDocument?: string
}

function matching(db: Reader, partnerId: number, filter: ClaimFilter) {
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

/**
 * The partner's claims matching the filter, newest first, with their documents' metadata (oldest
 * first) and the total: a page of ids, then only its rows joined.
 */
export async function listClaimPage(db: Reader, partnerId: number, filter: ClaimFilter, page: PageWindow) {
  if (Object.values(filter).every((value) => value === undefined)) return listAll(db, partnerId, page)
  const { rows, total } = await pageByIds(
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
  const documents = await listDocumentsOf(
    db,
    rows.map((row) => row.id),
  )
  return { rows, documents, total }
}

/** The claim's columns its resource shows (claim.mapper.ts). */
const RESOURCE_COLUMNS = [
  'cl.id',
  'cl.number',
  'cl.status',
  'cl.type',
  'cl.subscription_id',
  'cl.annual_plan_id',
  'cl.customer_id',
  'cl.model_id',
  'cl.serial_number',
  'cl.occurred_at',
  'cl.description',
  'cl.police_report_number',
  'cl.police_report_issued_on',
  'cl.lmi',
  'cl.franchise',
  'cl.outcome',
  'cl.settlement_method',
  'cl.approved_amount',
  'cl.payable_amount',
  'cl.reason_code',
  'cl.note',
  'cl.decided_at',
  'cl.settlement_reference',
  'cl.settled_at',
  'cl.documents_request_kinds',
  'cl.documents_request_message',
  'cl.documents_requested_at',
  'cl.documents_request_after',
  'cl.opened_by',
  'cl.created_at',
  'cl.updated_at',
] as const
const DOCUMENT_COLUMNS = [
  'id',
  'claim_id',
  'kind',
  'filename',
  'content_type',
  'size',
  'sha256',
  'uploaded_at',
] as const

// The unfiltered page, as the subscriptions' (subscription.repository.ts): its statements built and
// compiled once (prepared()), which building the joined select on every call cost more than the
// database took to answer it; the page a range of `partner_seq` and the total the partner's counter,
// not an OFFSET and a count over the partner's claims (docs/benchmarks.md, Claims: a page).
// Columns named, not `*`: a text with `*` is not kept as a named statement on PostgreSQL (postgres.ts).
const claimSequenceRange = prepared((db: Reader, partnerId: number, oldest: number, newest: number) =>
  db
    .selectFrom('claims as cl')
    .innerJoin('customers as c', 'c.id', 'cl.customer_id')
    .innerJoin('models as m', 'm.id', 'cl.model_id')
    .select(RESOURCE_COLUMNS)
    .select(['c.name as customer_name', 'c.document as current_customer_document', 'm.name as model_name'])
    .where('cl.partner_id', '=', partnerId)
    .where(intRange(db, 'cl.partner_seq', oldest, newest))
    .orderBy('cl.partner_seq', 'desc'),
)
const claimDocumentsInRange = prepared((db: Reader, partnerId: number, lowest: number, highest: number) =>
  db
    .selectFrom('claim_documents')
    .select(DOCUMENT_COLUMNS)
    .where('claim_id', 'in', (eb) =>
      eb
        .selectFrom('claims')
        .select('id')
        .where('partner_id', '=', partnerId)
        .where(intRange(db, 'id', lowest, highest)),
    )
    .orderBy('claim_id')
    .orderBy('id'),
)
const claimCount = prepared((db: Reader, partnerId: number) =>
  db.selectFrom('partner_claim_counts').select('total').where('partner_id', '=', partnerId),
)

/**
 * Every claim of the partner: the total is its counter and the page a range of its numbers; then the
 * page's documents by the range of its ids (the page holds the partner's consecutive claims, numbered
 * in id order, so the range is exactly the page's claims and the statement keeps one shape). A claim
 * opened between the reads only adds a number above the range.
 */
async function listAll(db: Reader, partnerId: number, { offset, limit }: PageWindow) {
  const [counter] = await claimCount(db, partnerId)
  const total = Number(counter?.total ?? 0)
  const newest = total - offset
  if (newest < 1) return { rows: [], documents: [], total }
  const rows = await claimSequenceRange(db, partnerId, Math.max(1, newest - limit + 1), newest)
  const ids = rows.map((row) => row.id)
  const documents =
    ids.length === 0 ? [] : await claimDocumentsInRange(db, partnerId, Math.min(...ids), Math.max(...ids))
  return { rows, documents, total }
}
