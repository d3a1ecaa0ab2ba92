import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import type { Db, Reader, Trx } from '../../db/database.js'
import type { DocumentKind, FraudSignal } from '../../db/tables/claim.js'
import { retryingTransaction } from '../../db/transaction.js'
import { AppError, NotFoundError, StateError, ValidationError } from '../../shared/errors.js'
import { formatDate, startOfLocalDate, startOfNextDay } from '../../shared/time.js'
import { claimDocumentResource, documentsRequestFacts } from './claim.mapper.js'
import { setFraudSignals, transitionClaim } from './claim.repository.js'
import { DOCUMENT_KINDS, requiredDocuments, signalsAfterUpload } from './claim.rules.js'
import { findClaimForPartner, recordClaimEvent } from './claim.service.js'
import { deadlineStartAfter } from './claim-deadline.rules.js'
import {
  bytesOnAnotherCustomersClaim,
  type ContractOf,
  contractDocumentsSince,
  DOCUMENT_CHUNK_BYTES,
  deleteChunks,
  documentChunks,
  documentKindsOf,
  findDocumentFile,
  holdClaimIn,
  insertChunk,
  insertDocument,
  partnerBytesSince,
} from './claim-document.repository.js'
import {
  CONTRACT_YEAR_DAYS,
  contractYearLimitReached,
  type DocumentLimits,
  dayQuotaExceeded,
  documentLabel,
  documentLimitReached,
  isAcceptedContentType,
  MAX_DOCUMENTS_PER_CLAIM,
  statusAfterUpload,
  UPLOAD_STATUSES,
} from './claim-document.rules.js'

/** The source of a document's bytes: its pieces of `size` bytes, in order. */
export interface DocumentBytes {
  chunks(size: number): AsyncIterable<Buffer>
}

/** When an upload happens: the request's clock, the service's zone, and the limits in force. */
export interface UploadMoment {
  now: string
  timeZone: string
  limits: DocumentLimits
}

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

/** A document whose bytes are stored already, under `uploadId` (storeDocumentBytes). */
export type StoredDocument = Omit<ReceivedDocument, 'bytes'> & { uploadId: string }

/**
 * POST /claims/{id}/documents, in the request's transaction, its bytes stored before it: the
 * document's row, and the claim moves to `under_review` (event `claim.under_review`) once no
 * required kind is missing. 404 for another partner's claim; 422 once decided, at 30 documents, or
 * at the contract's documents of the year; 429 past the partner's bytes of the day.
 */
export async function addClaimDocument(
  trx: Trx,
  partnerId: number,
  claimId: number,
  document: StoredDocument,
  moment: UploadMoment,
) {
  const { now, timeZone } = moment
  const view = await findClaimForPartner(trx, partnerId, claimId)
  const claim = await holdClaimIn(trx, claimId, UPLOAD_STATUSES, now)
  if (!claim) throw new StateError('Documents can no longer be added: the claim was decided or withdrawn.')
  const held = await documentKindsOf(trx, claimId)
  if (documentLimitReached(held.length)) {
    throw ValidationError.field('file', `A claim holds at most ${MAX_DOCUMENTS_PER_CLAIM} documents.`)
  }
  await refuseOverLimits(trx, partnerId, view, document.size, moment)
  const row = await insertDocument(trx, {
    claim_id: claimId,
    kind: document.kind,
    filename: document.filename,
    content_type: document.contentType,
    size: document.size,
    sha256: document.sha256,
    uploaded_at: now,
    upload_id: document.uploadId,
  })
  await raiseReusedDocument(trx, claimId, claim, row)
  const stillRequired = requiredDocuments(claim.type, [...held, row], documentsRequestFacts(claim))
  const next = statusAfterUpload(claim.status, stillRequired)
  if (next !== null) {
    // The claim's row is held since holdClaimIn: nothing moved it in between.
    await transitionClaim(trx, claimId, [claim.status], next, {
      ...deadlineStartAfter(next, now),
      updated_at: now,
    })
    await recordClaimEvent(trx, 'claim.under_review', claimId, now, timeZone)
  }
  return claimDocumentResource(row, timeZone)
}

/**
 * `reused_document` (operators only): the document's bytes, hashed as they arrived, are already on
 * another customer's claim, under any partner. Only the claim receiving the copy is marked.
 */
async function raiseReusedDocument(
  trx: Trx,
  claimId: number,
  claim: { customer_document: string; fraud_signals: string },
  document: { id: number; sha256: string },
) {
  const current = JSON.parse(claim.fraud_signals) as FraudSignal[]
  if (current.includes('reused_document')) return
  const reused = await bytesOnAnotherCustomersClaim(
    trx,
    document.sha256,
    claim.customer_document,
    document.id,
  )
  const next = signalsAfterUpload(current, reused)
  if (next !== null) await setFraudSignals(trx, claimId, next)
}

/**
 * GET /claims/{id}/documents/{documentId}: the file of this partner's claim (404 otherwise), its
 * bytes a stream reading its chunks one at a time.
 */
export async function claimDocumentFile(db: Db, partnerId: number, claimId: number, documentId: number) {
  const file = await findDocumentFile(db, partnerId, claimId, documentId)
  if (!file) throw new NotFoundError('Document')
  const { filename, content_type, size } = file
  return { filename, content_type, size, bytes: Readable.from(documentChunks(db, file.upload_id)) }
}

/** The partner's claim exists (404 otherwise): checked before a file is read. */
export async function checkClaimExists(db: Db, partnerId: number, claimId: number): Promise<void> {
  await findClaimForPartner(db, partnerId, claimId)
}

/**
 * The contract's documents of the year (422 under `file`, withdrawn claims' counted) and the
 * partner's bytes of the day with this file's (429 until the day ends in the service's zone). Checked
 * before the bytes are stored and again in the document's transaction; on PostgreSQL concurrent
 * uploads of one partner to several claims may each pass the day's quota by the files in flight
 * (docs/decisions.md, Claim documents).
 */
export async function refuseOverLimits(
  db: Reader,
  partnerId: number,
  contract: ContractOf,
  size: number,
  { now, timeZone, limits }: UploadMoment,
): Promise<void> {
  const yearAgo = new Date(Date.parse(now) - CONTRACT_YEAR_DAYS * 86_400_000).toISOString()
  if (contractYearLimitReached(await contractDocumentsSince(db, contract, yearAgo), limits)) {
    const message = `The contract's claims hold at most ${limits.perContractYear} documents uploaded in ${CONTRACT_YEAR_DAYS} days, withdrawn claims' included.`
    throw ValidationError.field('file', message)
  }
  const today = startOfLocalDate(formatDate(now, timeZone), timeZone)
  if (dayQuotaExceeded(await partnerBytesSince(db, partnerId, today), size, limits)) {
    throw new DocumentQuotaError(
      Math.ceil((Date.parse(startOfNextDay(now, timeZone)) - Date.parse(now)) / 1000),
    )
  }
}

/** 429 `rate_limited`: the partner's documents of the day reached AMPARO_CLAIM_DOCUMENT_MIB_PER_PARTNER_DAY. */
export class DocumentQuotaError extends AppError {
  override readonly retryAfterSeconds: number

  constructor(retryAfterSeconds: number) {
    super(
      'rate_limited',
      "This file would take the partner's claim documents past their daily quota: try again after Retry-After seconds, once the day ends.",
    )
    this.retryAfterSeconds = Math.max(1, retryAfterSeconds)
  }
}

/** The limits checked before a file's bytes are stored: refused then, nothing is written. */
export async function checkDocumentLimits(
  db: Db,
  partnerId: number,
  claimId: number,
  size: number,
  moment: UploadMoment,
): Promise<void> {
  await refuseOverLimits(db, partnerId, await findClaimForPartner(db, partnerId, claimId), size, moment)
}

/**
 * Stores the file's bytes as chunks, each in a short transaction of its own, the file read between
 * them (docs/decisions.md, Claims: document storage), then runs `use` with their upload id; should
 * `use` fail (the document refused, or not written), the chunks are removed.
 */
export async function withStoredBytes<T>(
  db: Db,
  bytes: DocumentBytes,
  use: (uploadId: string) => Promise<T>,
): Promise<T> {
  const uploadId = randomUUID()
  try {
    let chunk = 0
    for await (const piece of bytes.chunks(DOCUMENT_CHUNK_BYTES)) {
      const n = chunk++
      await oneChunkAtATime(db, () => retryingTransaction(db, (trx) => insertChunk(trx, uploadId, n, piece)))
    }
    return await use(uploadId)
  } catch (error) {
    // A removal that fails too leaves chunks no document names, which nothing reads.
    await retryingTransaction(db, (trx) => deleteChunks(trx, uploadId)).catch(() => {})
    throw error
  }
}

const chunkQueues = new WeakMap<Db, Promise<unknown>>()

/**
 * Runs `write` once the process's previous chunk write ended: concurrent uploads take turns, so a
 * turn's group commit holds one chunk at most (≈ 128 KiB, about a millisecond) and other requests' statements
 * run between them, instead of every upload's chunk written in one go.
 */
function oneChunkAtATime<T>(db: Db, write: () => Promise<T>): Promise<T> {
  const turn = (chunkQueues.get(db) ?? Promise.resolve()).then(write)
  chunkQueues.set(
    db,
    turn.catch(() => {}),
  )
  return turn
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
    bytes: file,
  }
}

const isDocumentKind = (kind: string): kind is DocumentKind =>
  (DOCUMENT_KINDS as readonly string[]).includes(kind)
