import type { ClaimsTable, DocumentKind } from '../../db/tables/claim.js'
import { centsToAmount } from '../../shared/money.js'
import { formatTimestamp } from '../../shared/time.js'
import type { ClaimDocumentRow, ClaimResourceRow } from './claim.repository.js'
import {
  claimStatusLabel,
  claimTypeLabel,
  type DocumentsRequestFacts,
  requiredDocuments,
} from './claim.rules.js'

type RequestColumns = Pick<
  ClaimsTable,
  | 'documents_request_kinds'
  | 'documents_request_message'
  | 'documents_requested_at'
  | 'documents_request_after'
>

/** The claim's latest request for documents as its rules read it, or null when none was made. */
export function documentsRequestFacts(row: RequestColumns): DocumentsRequestFacts | null {
  if (row.documents_request_kinds === null) return null
  return {
    kinds: JSON.parse(row.documents_request_kinds) as DocumentKind[],
    after: Number(row.documents_request_after ?? 0),
  }
}

/** `documents_request` as the claim shows it: the kinds asked for, the message, and when. */
export function documentsRequestOf(row: RequestColumns, format: (instant: string) => string) {
  const facts = documentsRequestFacts(row)
  if (facts === null || row.documents_requested_at === null) return null
  return {
    kinds: [...facts.kinds],
    message: row.documents_request_message ?? '',
    requested_at: format(row.documents_requested_at),
  }
}

const _timestamp = (instant: string | null, timeZone: string) =>
  instant === null ? null : formatTimestamp(instant, timeZone)
const amount = (cents: number | null) => (cents === null ? null : centsToAmount(cents))

export function claimDocumentResource(row: ClaimDocumentRow, timeZone: string) {
  return {
    id: row.id,
    kind: row.kind,
    filename: row.filename,
    content_type: row.content_type,
    size: row.size,
    sha256: row.sha256,
    uploaded_at: formatTimestamp(row.uploaded_at, timeZone),
  }
}

/**
 * The claim as the partner sees it (GET /claims/{id}); `documents` are the claim's, oldest first.
 * The fraud signals are the operator's and never appear here.
 */
export function claimResource(row: ClaimResourceRow, documents: ClaimDocumentRow[], timeZone: string) {
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    status_label: claimStatusLabel(row.status),
    type: row.type,
    type_label: claimTypeLabel(row.type),
    subscription_id: row.subscription_id,
    annual_plan_id: row.annual_plan_id,
    customer: { id: row.customer_id, name: row.customer_name, document: row.current_customer_document },
    device: { model: { id: row.model_id, name: row.model_name }, serial_number: row.serial_number },
    occurred_at: formatTimestamp(row.occurred_at, timeZone),
    description: row.description,
    police_report:
      row.police_report_number === null
        ? null
        : { number: row.police_report_number, issued_on: row.police_report_issued_on },
    lmi: centsToAmount(row.lmi),
    franchise: centsToAmount(row.franchise),
    required_documents: requiredDocuments(row.type, documents, documentsRequestFacts(row)),
    documents_request: documentsRequestOf(row, (instant) => formatTimestamp(instant, timeZone)),
    documents: documents.map((d) => claimDocumentResource(d, timeZone)),
    decision: decisionOf(row, timeZone),
    opened_by: row.opened_by,
    settlement:
      row.settled_at === null
        ? null
        : { reference: row.settlement_reference, settled_at: formatTimestamp(row.settled_at, timeZone) },
    created_at: formatTimestamp(row.created_at, timeZone),
    updated_at: formatTimestamp(row.updated_at, timeZone),
  }
}

export type ClaimResource = ReturnType<typeof claimResource>

function decisionOf(row: ClaimResourceRow, timeZone: string) {
  const { outcome, decided_at } = row
  if (outcome === null || decided_at === null) return null
  return {
    outcome,
    settlement_method: row.settlement_method,
    approved_amount: amount(row.approved_amount),
    payable_amount: amount(row.payable_amount),
    reason_code: row.reason_code,
    note: row.note,
    decided_at: formatTimestamp(decided_at, timeZone),
  }
}
