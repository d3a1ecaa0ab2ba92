import type { Insertable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import { withSmallPageCache } from '../../db/database.js'
import type { ClaimDocumentsTable, ClaimStatus, DocumentKind } from '../../db/tables/claim.js'
import type { ClaimDocumentRow } from './claim.repository.js'

/**
 * Marks the claim changed at `now` when its status is one of `statuses`, and reports its status,
 * type, latest request for documents, customer document and fraud signals then; undefined when it
 * is in none. The update holds the claim's row until the transaction
 * ends (PostgreSQL; SQLite has one writer): concurrent uploads count the claim's documents one after
 * the other, and a decision waits for the upload or is waited for and seen.
 */
export async function holdClaimIn(trx: Trx, id: number, statuses: readonly ClaimStatus[], now: string) {
  return trx
    .updateTable('claims')
    .set({ updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', [...statuses])
    .returning([
      'status',
      'type',
      'documents_request_kinds',
      'documents_request_message',
      'documents_requested_at',
      'documents_request_after',
      'customer_document',
      'fraud_signals',
    ])
    .executeTakeFirst()
}

/**
 * Whether a document uploaded before `beforeId` with these bytes (`sha256`) is on a claim of another
 * customer than `customerDocument`, under any partner: the same person's own files do not count.
 */
export async function bytesOnAnotherCustomersClaim(
  db: Reader,
  sha256: string,
  customerDocument: string,
  beforeId: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('claim_documents as d')
    .innerJoin('claims as cl', 'cl.id', 'd.claim_id')
    .select('d.id')
    .where('d.sha256', '=', sha256)
    .where('d.id', '<', beforeId)
    .where('cl.customer_document', '<>', customerDocument)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** The claim's documents' ids and kinds, oldest first. */
export async function documentKindsOf(
  trx: Trx,
  claimId: number,
): Promise<{ id: number; kind: DocumentKind }[]> {
  return trx
    .selectFrom('claim_documents')
    .select(['id', 'kind'])
    .where('claim_id', '=', claimId)
    .orderBy('id')
    .execute()
}

/** A claim's contract: its subscription or annual plan (the other null). */
export type ContractOf = { subscription_id: number | null; annual_plan_id: number | null }

/** Documents uploaded since `since` to any claim of the contract, whatever the claim's status. */
export async function contractDocumentsSince(
  db: Reader,
  contract: ContractOf,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('claim_documents as d')
    .innerJoin('claims as cl', 'cl.id', 'd.claim_id')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .$if(contract.subscription_id !== null, (q) =>
      q.where('cl.subscription_id', '=', contract.subscription_id as number),
    )
    .$if(contract.subscription_id === null, (q) =>
      q.where('cl.annual_plan_id', '=', contract.annual_plan_id as number),
    )
    .where('d.uploaded_at', '>=', since)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Bytes of the documents the partner uploaded since `since`. */
export async function partnerBytesSince(db: Reader, partnerId: number, since: string): Promise<number> {
  const row = await db
    .selectFrom('claim_documents as d')
    .innerJoin('claims as cl', 'cl.id', 'd.claim_id')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('d.size'), eb.lit(0)).as('bytes'))
    .where('cl.partner_id', '=', partnerId)
    .where('d.uploaded_at', '>=', since)
    .executeTakeFirstOrThrow()
  return Number(row.bytes)
}

/**
 * A document's bytes are stored in chunks of this size (docs/decisions.md, Claims: document
 * storage): each chunk is one row and one bound value, so an upload never binds the whole file.
 */
export const DOCUMENT_CHUNK_BYTES = 128 * 1024

/** A chunk of an upload's bytes: written in a transaction of its own, before the document's row. */
export async function insertChunk(trx: Trx, uploadId: string, chunk: number, bytes: Buffer): Promise<void> {
  await withSmallPageCache(trx, () =>
    trx.insertInto('claim_document_chunks').values({ upload_id: uploadId, chunk, bytes }).execute(),
  )
}

/** Removes an upload's chunks: its document was refused, or never written. */
export async function deleteChunks(trx: Trx, uploadId: string): Promise<void> {
  await trx.deleteFrom('claim_document_chunks').where('upload_id', '=', uploadId).execute()
}

/** A document's metadata row (its bytes, written before it, named by `upload_id`). */
export async function insertDocument(
  trx: Trx,
  values: Insertable<ClaimDocumentsTable>,
): Promise<ClaimDocumentRow> {
  return trx.insertInto('claim_documents').values(values).returningAll().executeTakeFirstOrThrow()
}

/** A document of this partner's claim: its label, type, size and upload (its bytes: `documentChunks`). */
export async function findDocumentFile(
  db: Reader,
  partnerId: number,
  claimId: number,
  documentId: number,
): Promise<{ upload_id: string; filename: string; content_type: string; size: number } | undefined> {
  return db
    .selectFrom('claim_documents as d')
    .innerJoin('claims as cl', 'cl.id', 'd.claim_id')
    .select(['d.upload_id', 'd.filename', 'd.content_type', 'd.size'])
    .where('cl.partner_id', '=', partnerId)
    .where('cl.id', '=', claimId)
    .where('d.id', '=', documentId)
    .executeTakeFirst()
}

/** A document's bytes, one chunk read at a time, in order. */
export async function* documentChunks(db: Reader, uploadId: string): AsyncGenerator<Buffer> {
  for (let chunk = 0; ; chunk++) {
    const row = await db
      .selectFrom('claim_document_chunks')
      .select('bytes')
      .where('upload_id', '=', uploadId)
      .where('chunk', '=', chunk)
      .executeTakeFirst()
    if (!row) return
    yield row.bytes
  }
}
