import type { Insertable } from 'kysely'
import type { Db, Trx } from '../../db/database.js'
import { withSmallPageCache } from '../../db/dialect-sql.js'
import type { ClaimDocumentRow, ClaimRow } from './claim.repository.js'
import type { ClaimDocumentsTable, ClaimStatus, DocumentKind } from './claim.table.js'

/**
 * Marks the claim changed at `now` when its status is one of `statuses`, and reports its status and
 * type then; undefined when it is in none. The update holds the claim's row until the transaction
 * ends (PostgreSQL; SQLite has one writer): concurrent uploads count the claim's documents one after
 * the other, and a decision waits for the upload or is waited for and seen.
 */
export async function holdClaimIn(
  trx: Trx,
  id: number,
  statuses: readonly ClaimStatus[],
  now: string,
): Promise<Pick<ClaimRow, 'status' | 'type'> | undefined> {
  return trx
    .updateTable('claims')
    .set({ updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', [...statuses])
    .returning(['status', 'type'])
    .executeTakeFirst()
}

/** The kinds of the claim's documents, one per document. */
export async function documentKindsOf(trx: Trx, claimId: number): Promise<DocumentKind[]> {
  const rows = await trx
    .selectFrom('claim_documents')
    .select('kind')
    .where('claim_id', '=', claimId)
    .execute()
  return rows.map((r) => r.kind)
}

/**
 * A document's bytes are stored in chunks of this size (docs/decisions.md, Claims: document
 * storage): each chunk is one row and one bound value, so an upload never binds the whole file.
 */
export const DOCUMENT_CHUNK_BYTES = 256 * 1024

/** The source of a document's bytes: its pieces of `size` bytes, in order. */
export interface DocumentBytes {
  chunks(size: number): AsyncIterable<Buffer>
}

/**
 * A document's metadata row and, apart, its bytes as chunks 0, 1, … (written past the page cache:
 * withSmallPageCache).
 */
export async function insertDocument(
  trx: Trx,
  values: Insertable<ClaimDocumentsTable>,
  bytes: DocumentBytes,
): Promise<ClaimDocumentRow> {
  const row = await trx.insertInto('claim_documents').values(values).returningAll().executeTakeFirstOrThrow()
  await withSmallPageCache(trx, async () => {
    let chunk = 0
    for await (const piece of bytes.chunks(DOCUMENT_CHUNK_BYTES)) {
      await trx
        .insertInto('claim_document_contents')
        .values({ document_id: row.id, chunk, bytes: piece })
        .execute()
      chunk += 1
    }
  })
  return row
}

/** A document of this partner's claim: its label, type and size (its bytes: `documentChunks`). */
export async function findDocumentFile(
  db: Db,
  partnerId: number,
  claimId: number,
  documentId: number,
): Promise<{ id: number; filename: string; content_type: string; size: number } | undefined> {
  return db
    .selectFrom('claim_documents as d')
    .innerJoin('claims as cl', 'cl.id', 'd.claim_id')
    .select(['d.id', 'd.filename', 'd.content_type', 'd.size'])
    .where('cl.partner_id', '=', partnerId)
    .where('cl.id', '=', claimId)
    .where('d.id', '=', documentId)
    .executeTakeFirst()
}

/** A document's bytes, one chunk read at a time, in order. */
export async function* documentChunks(db: Db, documentId: number): AsyncGenerator<Buffer> {
  for (let chunk = 0; ; chunk++) {
    const row = await db
      .selectFrom('claim_document_contents')
      .select('bytes')
      .where('document_id', '=', documentId)
      .where('chunk', '=', chunk)
      .executeTakeFirst()
    if (!row) return
    yield row.bytes
  }
}
