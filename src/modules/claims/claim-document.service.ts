import { Readable } from 'node:stream'
import type { Db, Trx } from '../../db/database.js'
import { AppError, NotFoundError, StateError, ValidationError } from '../../shared/errors.js'
import { claimDocumentResource } from './claim.mapper.js'
import { transitionClaim } from './claim.repository.js'
import { DOCUMENT_KINDS } from './claim.rules.js'
import { findClaimForPartner, recordClaimEvent } from './claim.service.js'
import type { DocumentKind } from './claim.table.js'
import {
  DOCUMENT_CHUNK_BYTES,
  type DocumentBytes,
  documentChunks,
  documentKindsOf,
  findDocumentFile,
  holdClaimIn,
  insertDocument,
} from './claim-document.repository.js'
import {
  documentLabel,
  documentLimitReached,
  isAcceptedContentType,
  MAX_DOCUMENTS_PER_CLAIM,
  statusAfterUpload,
  UPLOAD_STATUSES,
} from './claim-document.rules.js'

/** A file as it arrived: its bytes on disk (plugins/upload.ts), their size and hash. */
export interface ArrivedFile extends DocumentBytes {
  filename: string
  path: string
  size: number
  sha256: string
}

/** A file as received: its label, its type recognised from its bytes, its bytes and their hash. */
export interface ReceivedDocument {
  kind: DocumentKind
  filename: string
  contentType: string
  size: number
  sha256: string
  bytes: DocumentBytes
}

/**
 * POST /claims/{id}/documents, in the request's transaction: the document and its bytes are
 * stored together, and the claim moves to `under_review` (event `claim.under_review`) once no
 * required kind is missing. 404 for another partner's claim; 422 once decided or at 30 documents.
 */
export async function addClaimDocument(
  trx: Trx,
  partnerId: number,
  claimId: number,
  document: ReceivedDocument,
  { now, timeZone }: { now: string; timeZone: string },
) {
  await findClaimForPartner(trx, partnerId, claimId)
  const claim = await holdClaimIn(trx, claimId, UPLOAD_STATUSES, now)
  if (!claim) throw new StateError('Documents can no longer be added: the claim was decided or withdrawn.')
  const kinds = await documentKindsOf(trx, claimId)
  if (documentLimitReached(kinds.length)) {
    throw ValidationError.field('file', `A claim holds at most ${MAX_DOCUMENTS_PER_CLAIM} documents.`)
  }
  const row = await insertDocument(
    trx,
    {
      claim_id: claimId,
      kind: document.kind,
      filename: document.filename,
      content_type: document.contentType,
      size: document.size,
      sha256: document.sha256,
      uploaded_at: now,
    },
    document.bytes,
  )
  const next = statusAfterUpload(claim.type, claim.status, [...kinds, document.kind])
  if (next !== null) {
    // The claim's row is held since holdClaimIn: nothing moved it in between.
    await transitionClaim(trx, claimId, [claim.status], next, { updated_at: now })
    await recordClaimEvent(trx, 'claim.under_review', claimId, now, timeZone)
  }
  return claimDocumentResource(row, timeZone)
}

/**
 * GET /claims/{id}/documents/{documentId}: the file of this partner's claim (404 otherwise), its
 * bytes a stream reading its chunks one at a time.
 */
export async function claimDocumentFile(db: Db, partnerId: number, claimId: number, documentId: number) {
  const file = await findDocumentFile(db, partnerId, claimId, documentId)
  if (!file) throw new NotFoundError('Document')
  const { filename, content_type, size } = file
  return { filename, content_type, size, bytes: Readable.from(documentChunks(db, file.id)) }
}

/** The partner's claim exists (404 otherwise): checked before a file is read. */
export async function checkClaimExists(db: Db, partnerId: number, claimId: number): Promise<void> {
  await findClaimForPartner(db, partnerId, claimId)
}

/**
 * The form's document, checked: a known `kind` and a `file` (422 under each), of a type recognised
 * from its bytes among the accepted ones (415, whatever the type or name it was sent with).
 */
export async function receiveDocument(
  kind: string | undefined,
  file: ArrivedFile | null,
): Promise<ReceivedDocument> {
  const errors: Record<string, string[]> = {}
  if (kind === undefined || kind === '') errors.kind = ['The kind field is required.']
  else if (!isDocumentKind(kind)) errors.kind = ['The selected kind is invalid.']
  if (file === null || file.size === 0) errors.file = ['The file field is required.']
  if (Object.keys(errors).length > 0 || file === null) throw new ValidationError(errors)
  // Loaded at the first upload, as pdfkit at the first certificate: not carried by every process.
  const { fileTypeFromFile } = await import('file-type')
  const recognised = await fileTypeFromFile(file.path)
  if (!isAcceptedContentType(recognised?.mime)) {
    throw new AppError(
      'unsupported_media_type',
      'The file must be a JPEG, PNG, WebP, HEIC or PDF (recognised from its contents).',
    )
  }
  return {
    kind: kind as DocumentKind,
    filename: documentLabel(file.filename),
    contentType: recognised?.mime as string,
    size: file.size,
    sha256: file.sha256,
    bytes: await readAhead(file),
  }
}

/**
 * The file's bytes read into memory in the chunks they are stored in (≤ 10 MiB), before the
 * transaction that stores them: reading a file inside it would hold the database meanwhile
 * (src/db/README.md, Transactions).
 */
async function readAhead(file: DocumentBytes): Promise<DocumentBytes> {
  const pieces: Buffer[] = []
  // Each piece is valid only until the next is asked for: copied.
  for await (const piece of file.chunks(DOCUMENT_CHUNK_BYTES)) pieces.push(Buffer.from(piece))
  return {
    async *chunks(size) {
      if (size !== DOCUMENT_CHUNK_BYTES)
        throw new Error(`read ahead in chunks of ${DOCUMENT_CHUNK_BYTES} bytes`)
      yield* pieces
    },
  }
}

const isDocumentKind = (kind: string): kind is DocumentKind =>
  (DOCUMENT_KINDS as readonly string[]).includes(kind)
