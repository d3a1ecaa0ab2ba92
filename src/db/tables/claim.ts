import type { Generated } from 'kysely'
import type { CoverageType } from './plan.js'

export type ClaimStatus =
  | 'documents_pending'
  | 'under_review'
  | 'approved'
  | 'denied'
  | 'settled'
  | 'withdrawn'
/** Who opened a claim (README, Portal do segurado). */
export type ClaimOpener = 'partner' | 'insured'
export type ClaimOutcome = 'approved' | 'denied'
export type SettlementMethod = 'repair' | 'replacement' | 'indemnity'
export type DenialReason =
  | 'not_covered'
  | 'outside_coverage'
  | 'late_notice'
  | 'documents_invalid'
  | 'fraud_suspected'
  | 'other'
export type DocumentKind =
  | 'police_report'
  | 'imei_block'
  | 'invoice'
  | 'photo'
  | 'repair_quote'
  | 'id_document'
  | 'other'
export type FraudSignal =
  | 'early_claim'
  | 'repeat_device'
  | 'repeat_customer'
  | 'recent_card_change'
  | 'reused_document'

export interface ClaimsTable {
  id: Generated<number>
  /** `SIN-<year of created_at>-<6+ digits>`, unique service-wide (claim_numbers). */
  number: string
  partner_id: number
  /**
   * 1, 2, 3… per partner in opening order, without gaps: the list's pages are ranges of it. Set by
   * insertClaim from partner_claim_counts.
   */
  partner_seq: Generated<number>
  /** Exactly one of the two contracts. */
  subscription_id: number | null
  annual_plan_id: number | null
  /** The contract's plan (product): its coverage types and claim terms. */
  plan_id: number
  customer_id: number
  /** Bare digits, copied from the customer: the fraud signals look across partners by it. */
  customer_document: string
  model_id: number
  /** The contract's serial number or IMEI at opening, as the claim shows it. */
  serial_number: string | null
  /** `deviceKey` of the contract's serials / IMEIs at opening (repeat_device). */
  device_key: string | null
  second_device_key: string | null
  type: CoverageType
  status: ClaimStatus
  /** UTC ISO instant. */
  occurred_at: string
  description: string
  police_report_number: string | null
  /** 'YYYY-MM-DD'. */
  police_report_issued_on: string | null
  /** Cents, copied from the contract at opening. */
  lmi: number
  franchise: number
  outcome: ClaimOutcome | null
  settlement_method: SettlementMethod | null
  /** Cents. */
  approved_amount: number | null
  payable_amount: number | null
  reason_code: DenialReason | null
  /** The operator's note the partner sees. */
  note: string | null
  decided_at: string | null
  settlement_reference: string | null
  settled_at: string | null
  /**
   * JSON array of FraudSignal, computed at opening (`reused_document` at an upload); operators
   * only, never in the partner API.
   */
  fraud_signals: Generated<string>
  /** The latest request for documents: its kinds (JSON array of DocumentKind), message and instant. */
  documents_request_kinds: string | null
  documents_request_message: string | null
  documents_requested_at: string | null
  /** The claim's last document id when it was requested: only a later document answers it. */
  documents_request_after: number | null
  /** The operator the claim is assigned to (console only). */
  assignee_id: number | null
  /**
   * When its last required document arrived and its deadline's 30 days started (claim-deadline.rules.ts);
   * null while documents are awaited. Written with the status, by transitionClaim's callers.
   */
  deadline_started_at: string | null
  /** Who opened it: the partner through its API, or the insured on the portal. */
  opened_by: Generated<ClaimOpener>
  created_at: string
  updated_at: string
}

/** An operator's internal note on a claim (console only), append-only. */
export interface ClaimNotesTable {
  id: Generated<number>
  claim_id: number
  author_id: number
  body: string
  created_at: string
}

/** The last claim number given in a year. */
export interface ClaimNumbersTable {
  year: number
  last: number
}

export interface ClaimDocumentsTable {
  id: Generated<number>
  claim_id: number
  kind: DocumentKind
  /** A sanitised label only, never a path. */
  filename: string
  /** As recognised from the bytes. */
  content_type: string
  /** Bytes. */
  size: number
  /** Hex, of the bytes as received; indexed: `reused_document` looks it up across partners. */
  sha256: string
  uploaded_at: string
  /** The upload that wrote its bytes (`claim_document_chunks`), before this row. */
  upload_id: string
}

/**
 * A document's bytes, apart from its metadata and the claim's row, in chunks 0, 1, … in the file's
 * order, keyed by the upload that wrote them (migration 0024).
 */
export interface ClaimDocumentChunksTable {
  upload_id: string
  chunk: number
  bytes: Buffer
}

/** How many claims each partner has opened: the last partner_seq it was given. */
export interface PartnerClaimCountsTable {
  partner_id: number
  total: number
}
