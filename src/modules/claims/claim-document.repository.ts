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

/** A document's metadata row and, apart, its bytes (written past the page cache: withSmallPageCache). */
export async function insertDocument(
  trx: Trx,
  values: Insertable<ClaimDocumentsTable>,
  bytes: Buffer,
): Promise<ClaimDocumentRow> {
  const row = await trx.insertInto('claim_documents').values(values).returningAll().executeTakeFirstOrThrow()
  await withSmallPageCache(trx, () =>
    trx.insertInto('claim_document_contents').values({ document_id: row.id, bytes }).execute(),
  )
  return row
}

/** A document of this partner's claim with its bytes. */
export async function findDocumentFile(
  db: Db,
  partnerId: number,
  claimId: number,
  documentId: number,
): Promise<{ filename: string; content_type: string; bytes: Buffer } | undefined> {
  return db
    .selectFrom('claim_documents as d')
    .innerJoin('claims as cl', 'cl.id', 'd.claim_id')
    .innerJoin('claim_document_contents as f', 'f.document_id', 'd.id')
    .select(['d.filename', 'd.content_type', 'f.bytes'])
    .where('cl.partner_id', '=', partnerId)
    .where('cl.id', '=', claimId)
    .where('d.id', '=', documentId)
    .executeTakeFirst()
}
