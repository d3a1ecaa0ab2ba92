import type { ClaimStatus, DocumentKind } from '../../db/tables/claim.js'

// A claim's documents (README, Claims: documents): what may be uploaded, when, and what an upload
// does to the claim.

/** A document's largest size: 10 MiB. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024
/** A claim holds at most this many documents. */
export const MAX_DOCUMENTS_PER_CLAIM = 30

/**
 * The types accepted, as recognised from the bytes: JPEG, PNG, WebP, HEIC (a phone's photo is
 * `image/heic`, or `image/heif` when its container names the generic brand) and PDF.
 */
export const ACCEPTED_CONTENT_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/heic',
  'image/heif',
  'application/pdf',
] as const

export const isAcceptedContentType = (mime: string | undefined): boolean =>
  mime !== undefined && (ACCEPTED_CONTENT_TYPES as readonly string[]).includes(mime)

/** Documents are received until the claim is decided (or withdrawn). */
export const UPLOAD_STATUSES = ['documents_pending', 'under_review'] as const satisfies readonly ClaimStatus[]

export const acceptsDocuments = (status: ClaimStatus): boolean =>
  (UPLOAD_STATUSES as readonly ClaimStatus[]).includes(status)

/** Whether a claim already holding `held` documents may take one more. */
export const documentLimitReached = (held: number): boolean => held >= MAX_DOCUMENTS_PER_CLAIM

/** What claim documents may take (config: claimDocumentLimits). */
export interface DocumentLimits {
  /** Documents uploaded to one contract's claims in 365 days, withdrawn claims' counted. */
  perContractYear: number
  /** Bytes one partner uploads in a day of the service's zone. */
  bytesPerPartnerDay: number
}

/** The window of the per-contract count: the 365 days before `now`, as the yearly claims limit. */
export const CONTRACT_YEAR_DAYS = 365

/** Whether a contract whose claims took `held` documents in the year may take one more. */
export const contractYearLimitReached = (held: number, limits: DocumentLimits): boolean =>
  held >= limits.perContractYear

/** Whether a file of `size` bytes takes the partner past its day's quota, `used` bytes uploaded already. */
export const dayQuotaExceeded = (used: number, size: number, limits: DocumentLimits): boolean =>
  used + size > limits.bytesPerPartnerDay

/**
 * The status a claim moves to once a document is added, or null to stay: `documents_pending`
 * becomes `under_review` when no kind is still required (claim.rules.ts, requiredDocuments).
 */
export function statusAfterUpload(
  status: ClaimStatus,
  stillRequired: readonly DocumentKind[],
): ClaimStatus | null {
  if (status !== 'documents_pending') return null
  return stillRequired.length === 0 ? 'under_review' : null
}

const MAX_LABEL_LENGTH = 100
const FALLBACK_LABEL = 'document'

/**
 * The sent filename as a label only: never a path (what follows the last `/` or `\`), without
 * control or format characters, quotes, or characters a file system or a header refuses
 * (`<>:"/\|?*;`), spaces collapsed, no leading dot, at most 100 characters (its extension kept).
 */
export function documentLabel(sent: string | undefined): string {
  const base = (sent ?? '').normalize('NFC').split(/[/\\]/).pop() ?? ''
  const cleaned = base
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '')
    .replace(/[<>:"'`|?*;%]/g, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.]+/, '')
    .trim()
  if (cleaned === '') return FALLBACK_LABEL
  const chars = [...cleaned]
  if (chars.length <= MAX_LABEL_LENGTH) return cleaned
  const dot = cleaned.lastIndexOf('.')
  const extension = dot > 0 && cleaned.length - dot <= 10 ? cleaned.slice(dot) : ''
  return chars.slice(0, MAX_LABEL_LENGTH - [...extension].length).join('') + extension
}
