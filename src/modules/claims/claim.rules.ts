import type {
  ClaimStatus,
  DenialReason,
  DocumentKind,
  FraudSignal,
  SettlementMethod,
} from '../../db/tables/claim.js'
import { COVERAGE_TYPES, type CoverageType } from '../../db/tables/plan.js'
import { CLAIM_STATUS_LABELS as CLAIM_STATUS_TEXT } from '../../shared/labels.js'
import { formatDate } from '../../shared/time.js'
import { COVERAGE_TYPE_LABELS } from '../plans/plan.rules.js'

// A claim's pure rules (README, Claims): perils, labels, statuses, required documents, the opening
// rules (coverage in force, notice period, peril covered, police report, yearly limit) and the fraud
// signals. Instants are UTC ISO strings (comparable as text), dates 'YYYY-MM-DD' in the service zone.

export { COVERAGE_TYPES as CLAIM_TYPES, type CoverageType as ClaimType }

export const CLAIM_STATUSES = [
  'documents_pending',
  'under_review',
  'approved',
  'denied',
  'settled',
  'withdrawn',
] as const satisfies readonly ClaimStatus[]

export const CLAIM_STATUS_LABELS: Record<ClaimStatus, string> = CLAIM_STATUS_TEXT

export const claimTypeLabel = (type: CoverageType): string => COVERAGE_TYPE_LABELS[type]
export const claimStatusLabel = (status: ClaimStatus): string => CLAIM_STATUS_LABELS[status]

/** Statuses in which a claim is still open (an `approved` one until it is settled). */
export const OPEN_STATUSES = [
  'documents_pending',
  'under_review',
  'approved',
] as const satisfies readonly ClaimStatus[]
/** The partner may withdraw a claim from these. */
export const WITHDRAWABLE_STATUSES = [
  'documents_pending',
  'under_review',
] as const satisfies readonly ClaimStatus[]

export const isOpen = (status: ClaimStatus) => (OPEN_STATUSES as readonly ClaimStatus[]).includes(status)
export const canWithdraw = (status: ClaimStatus) =>
  (WITHDRAWABLE_STATUSES as readonly ClaimStatus[]).includes(status)

// — Documents —

export const DOCUMENT_KINDS = [
  'police_report',
  'imei_block',
  'invoice',
  'photo',
  'repair_quote',
  'id_document',
  'other',
] as const satisfies readonly DocumentKind[]

const THEFT_DOCUMENTS: DocumentKind[] = ['police_report', 'imei_block', 'invoice']
const DAMAGE_DOCUMENTS: DocumentKind[] = ['photo', 'invoice']

/** Theft needs the police report (Boletim de Ocorrência); damage is shown by photos. */
export const isTheft = (type: CoverageType) => type === 'robbery' || type === 'qualified_theft'

/** The kinds a claim of this type needs before it is reviewed. */
export function requiredDocumentKinds(type: CoverageType): DocumentKind[] {
  return isTheft(type) ? [...THEFT_DOCUMENTS] : [...DAMAGE_DOCUMENTS]
}

/** The required kinds not among `uploadedKinds`, in the order requiredDocumentKinds gives them. */
export function missingDocumentKinds(
  type: CoverageType,
  uploadedKinds: readonly DocumentKind[],
): DocumentKind[] {
  return requiredDocumentKinds(type).filter((kind) => !uploadedKinds.includes(kind))
}

// — Requesting documents (the adjuster's, on a claim under review) —

/** An adjuster asks for documents only on a claim under review; it then awaits them. */
export const DOCUMENTS_REQUESTABLE_STATUSES = ['under_review'] as const satisfies readonly ClaimStatus[]
export const canRequestDocuments = (status: ClaimStatus) =>
  (DOCUMENTS_REQUESTABLE_STATUSES as readonly ClaimStatus[]).includes(status)

export const DOCUMENTS_REQUEST_MESSAGE = { min: 10, max: 500 } as const

/** A request's kinds, and the claim's last document id when it was made (0: none). */
export interface DocumentsRequestFacts {
  kinds: readonly DocumentKind[]
  after: number
}

/** The request's field errors: one kind at least, each known, and a message of 10 to 500 characters. */
export function documentsRequestErrors({
  kinds,
  message,
}: {
  kinds: readonly string[]
  message: string
}): Record<string, string[]> {
  const errors: Record<string, string[]> = {}
  if (kinds.length === 0) errors.kinds = ['The kinds field must name at least one document kind.']
  else if (kinds.some((kind) => !(DOCUMENT_KINDS as readonly string[]).includes(kind))) {
    errors.kinds = [`Each kind must be one of ${DOCUMENT_KINDS.join(', ')}.`]
  }
  const length = [...message.trim()].length
  const { min, max } = DOCUMENTS_REQUEST_MESSAGE
  if (length < min || length > max) errors.message = [`The message must be ${min} to ${max} characters.`]
  return errors
}

/**
 * The kinds a claim still awaits: those its type requires and no document has, then those the
 * latest request asked for that no document uploaded since it answers (a kind already on the claim
 * counts only when uploaded after the request: the adjuster asked for another one).
 */
export function requiredDocuments(
  type: CoverageType,
  documents: readonly { id: number; kind: DocumentKind }[],
  request: DocumentsRequestFacts | null,
): DocumentKind[] {
  const missing = missingDocumentKinds(
    type,
    documents.map((d) => d.kind),
  )
  if (request === null) return missing
  const unanswered = request.kinds.filter(
    (kind) => !missing.includes(kind) && !documents.some((d) => d.kind === kind && d.id > request.after),
  )
  return [...missing, ...new Set(unanswered)]
}

// — Opening —

const DAY_MS = 86_400_000
const instantMinusDays = (instant: string, days: number) =>
  new Date(Date.parse(instant) - days * DAY_MS).toISOString()

/** Why `occurredAt` is refused by the notice period at `now`, or null: not future, not too old. */
export function noticeRefusal(occurredAt: string, now: string, noticeDays: number): string | null {
  if (occurredAt > now) return 'The occurred at must not be in the future.'
  if (occurredAt < instantMinusDays(now, noticeDays)) {
    return `The claim must be opened within ${noticeDays} days of the loss.`
  }
  return null
}

export const perilCovered = (type: CoverageType, coverageTypes: readonly CoverageType[]) =>
  coverageTypes.includes(type)

/**
 * A police report cannot be issued after today: `issuedOn` (`YYYY-MM-DD`) against `now`'s date in
 * the service's zone (the partner's clock).
 */
export const policeReportFromTheFuture = (issuedOn: string, now: string, timeZone: string) =>
  issuedOn > formatDate(now, timeZone)

/** A theft claim needs the police report's number. */
export const policeReportMissing = (type: CoverageType, number: string | null | undefined) =>
  isTheft(type) && !number?.trim()

/** The window the yearly limit counts approvals in: the 365 days before the loss (and since). */
export const yearlyLimitSince = (occurredAt: string) => instantMinusDays(occurredAt, 365)

/** Whether `approvedCount` claims approved since yearlyLimitSince reach the plan's limit. */
export const yearlyLimitReached = (approvedCount: number, maxClaimsPerYear: number) =>
  approvedCount >= maxClaimsPerYear

// — Fraud signals (operators only) —

export interface FraudFacts {
  occurredAt: string
  /** When the contract's coverage started (installment 1's payment, the annual plan's starts_at). */
  coverageStartedAt: string | null
  /** Other claims of the same device in the last 24 months, any partner. */
  sameDeviceClaims: number
  /** Other claims of the same customer document in the last 12 months, any partner. */
  sameCustomerClaims: number
  /** The latest card replacement before the loss, if any. */
  lastCardChangeAt: string | null
}

export const FRAUD_WINDOWS = { earlyClaimDays: 30, deviceMonths: 24, customerMonths: 12, cardChangeDays: 7 }

/** Every signal, in the order a claim lists them; `reused_document` is raised by an upload. */
export const FRAUD_SIGNALS = [
  'early_claim',
  'repeat_device',
  'repeat_customer',
  'recent_card_change',
  'reused_document',
] as const satisfies readonly FraudSignal[]

/** `months` calendar months before `instant` (UTC). */
export function monthsBefore(instant: string, months: number): string {
  const d = new Date(instant)
  d.setUTCMonth(d.getUTCMonth() - months)
  return d.toISOString()
}

/**
 * Where the look-backs of a claim opened at `openedAt` start: the other claims of its device and of
 * its customer counted at opening, and shown as the evidence since.
 */
export const fraudWindowsOf = (openedAt: string) => ({
  deviceSince: monthsBefore(openedAt, FRAUD_WINDOWS.deviceMonths),
  customerSince: monthsBefore(openedAt, FRAUD_WINDOWS.customerMonths),
})

export function fraudSignals(f: FraudFacts): FraudSignal[] {
  const signals: FraudSignal[] = []
  const start = f.coverageStartedAt
  if (start !== null && f.occurredAt < new Date(Date.parse(start) + 30 * DAY_MS).toISOString()) {
    signals.push('early_claim')
  }
  if (f.sameDeviceClaims > 0) signals.push('repeat_device')
  if (f.sameCustomerClaims >= 2) signals.push('repeat_customer')
  const card = f.lastCardChangeAt
  if (card !== null && card <= f.occurredAt && card >= instantMinusDays(f.occurredAt, 7)) {
    signals.push('recent_card_change')
  }
  return signals
}

/**
 * The claim's signals once a document arrived whose bytes are on another customer's claim
 * (`reused`): `reused_document` added in its place; null when nothing changes.
 */
export function signalsAfterUpload(signals: readonly FraudSignal[], reused: boolean): FraudSignal[] | null {
  if (!reused || signals.includes('reused_document')) return null
  return FRAUD_SIGNALS.filter((signal) => signal === 'reused_document' || signals.includes(signal))
}

// — Number —

/** `SIN-<year>-<sequence, at least 6 digits>`: the year is the claim's created_at year. */
export function claimNumber(year: number, sequence: number): string {
  return `SIN-${year}-${String(sequence).padStart(6, '0')}`
}

// — Decision and settlement (the operator's; README, Claims: decision and settlement) —

export const SETTLEMENT_METHODS = [
  'repair',
  'replacement',
  'indemnity',
] as const satisfies readonly SettlementMethod[]
export const DENIAL_REASONS = [
  'not_covered',
  'outside_coverage',
  'late_notice',
  'documents_invalid',
  'fraud_suspected',
  'other',
] as const satisfies readonly DenialReason[]

/** The statuses each decision starts from. */
export const APPROVABLE_STATUSES = ['under_review'] as const satisfies readonly ClaimStatus[]
export const DENIABLE_STATUSES = [
  'documents_pending',
  'under_review',
] as const satisfies readonly ClaimStatus[]
export const SETTLEABLE_STATUSES = ['approved'] as const satisfies readonly ClaimStatus[]

export const DENIAL_NOTE_MAX = 2000
export const SETTLEMENT_REFERENCE_MAX = 100

export const canApprove = (status: ClaimStatus) =>
  (APPROVABLE_STATUSES as readonly ClaimStatus[]).includes(status)
export const canDeny = (status: ClaimStatus) => (DENIABLE_STATUSES as readonly ClaimStatus[]).includes(status)
export const canSettle = (status: ClaimStatus) =>
  (SETTLEABLE_STATUSES as readonly ClaimStatus[]).includes(status)

/**
 * What is paid on an approved claim: approved − franchise, never below 0. Both are integer cents,
 * so the difference is exact: the half-up rounding to the cent happened where a fraction arises,
 * when the franchise was fixed at contracting (rate × LMI, `applyRateBp`) and when the approved
 * amount was read from reais (at most two decimals, else refused).
 */
export function payableAmount(approvedCents: number, franchiseCents: number): number {
  return Math.max(0, approvedCents - franchiseCents)
}

export interface Approval {
  settlementMethod: string
  /** Cents; null when the amount given was not a non-negative amount with at most two decimals. */
  approvedAmount: number | null
}

/** The approval's field errors against the contract's LMI (cents); empty when it may be decided. */
export function approvalErrors(
  { settlementMethod, approvedAmount }: Approval,
  lmi: number,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {}
  if (!(SETTLEMENT_METHODS as readonly string[]).includes(settlementMethod)) {
    errors.settlement_method = [`The settlement method must be one of ${SETTLEMENT_METHODS.join(', ')}.`]
  }
  if (approvedAmount === null || approvedAmount <= 0) {
    errors.approved_amount = ['The approved amount must be greater than 0, with at most two decimals.']
  } else if (approvedAmount > lmi) {
    errors.approved_amount = [
      `The approved amount must not exceed the contract's LMI (${(lmi / 100).toFixed(2)}).`,
    ]
  }
  return errors
}

/** The denial's field errors: a known reason and a note the partner sees. */
export function denialErrors({
  reasonCode,
  note,
}: {
  reasonCode: string
  note: string
}): Record<string, string[]> {
  const errors: Record<string, string[]> = {}
  if (!(DENIAL_REASONS as readonly string[]).includes(reasonCode)) {
    errors.reason_code = [`The reason code must be one of ${DENIAL_REASONS.join(', ')}.`]
  }
  const length = note.trim().length
  if (length === 0) errors.note = ['The note is required: the partner sees it.']
  else if (length > DENIAL_NOTE_MAX) errors.note = [`The note must not exceed ${DENIAL_NOTE_MAX} characters.`]
  return errors
}

/** The settlement's field errors: the reference (repair order or transfer id) is at most 100 characters. */
export function settlementErrors(reference: string | null): Record<string, string[]> {
  if (reference !== null && reference.length > SETTLEMENT_REFERENCE_MAX) {
    return { reference: [`The reference must not exceed ${SETTLEMENT_REFERENCE_MAX} characters.`] }
  }
  return {}
}

/** A replacement or an indemnity pays the device's loss and ends the contract; a repair keeps it. */
export const settlementEndsContract = (method: SettlementMethod) => method !== 'repair'
