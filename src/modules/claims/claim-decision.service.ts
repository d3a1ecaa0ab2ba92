import type { Reader, Trx } from '../../db/database.js'
import type { DenialReason, DocumentKind, SettlementMethod } from '../../db/tables/claim.js'
import { NotFoundError, StateError, ValidationError } from '../../shared/errors.js'
import { endContract } from '../contracts/contract-end.service.js'
import { contractOfColumns } from '../contracts/contract-reference.js'
import type { RenderingContext } from '../events/event.service.js'
import { type ClaimView, findClaimView, findClaimViewById, transitionClaim } from './claim.repository.js'
import {
  APPROVABLE_STATUSES,
  approvalErrors,
  canApprove,
  canDeny,
  canRequestDocuments,
  canSettle,
  claimStatusLabel,
  DENIABLE_STATUSES,
  DOCUMENTS_REQUESTABLE_STATUSES,
  denialErrors,
  documentsRequestErrors,
  payableAmount,
  SETTLEABLE_STATUSES,
  settlementEndsContract,
  settlementErrors,
} from './claim.rules.js'
import { recordClaimEvent } from './claim.service.js'
import { deadlineStartAfter } from './claim-deadline.rules.js'
import { documentKindsOf } from './claim-document.repository.js'

// The operator's decision and settlement of a claim (README, Claims: decision and settlement), for
// `amparo claim approve|deny|settle` and the sandbox's decision and settle endpoints alike. Each
// runs in the caller's transaction; the status-guarded transition makes it race-free: of two
// concurrent decisions one moves the claim, the other finds it moved and answers 422 invalid_state.

/** Who decides: the operator (any partner's claim), or a sandbox partner (its own claims only). */
export type Decider = { operator: true } | { partnerId: number }

export interface Moment {
  /** UTC ISO instant. */
  now: string
  rendering: RenderingContext
}

export interface Approval {
  settlementMethod: string
  /** Cents; null when the amount given was not representable (refused as approved_amount). */
  approvedAmount: number | null
}

export interface Denial {
  reasonCode: string
  note: string
}

/** The claim `decider` may decide; 404 when it does not exist or is another partner's. */
export async function findClaimToDecide(db: Reader, decider: Decider, id: number): Promise<ClaimView> {
  const view =
    'operator' in decider ? await findClaimViewById(db, id) : await findClaimView(db, decider.partnerId, id)
  if (!view) throw new NotFoundError('Claim')
  return view
}

const refusedFrom = (view: ClaimView, action: string, allowed: string) =>
  new StateError(
    `The claim is ${view.status} (${claimStatusLabel(view.status)}): only a claim ${allowed} can be ${action}.`,
  )

/** A concurrent decision moved the claim between this one's read and its update. */
const decidedMeanwhile = () => new StateError('The claim was decided meanwhile by another operator.')

function assertNoErrors(errors: Record<string, string[]>) {
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
}

/** Approves a claim under review: the method, the approved amount (≤ LMI) and what is payable. */
export async function approveClaim(
  trx: Trx,
  decider: Decider,
  id: number,
  approval: Approval,
  moment: Moment,
) {
  const view = await findClaimToDecide(trx, decider, id)
  assertNoErrors(approvalErrors(approval, view.lmi))
  if (!canApprove(view.status)) throw refusedFrom(view, 'approved', 'under review')
  const approved = approval.approvedAmount as number
  const moved = await transitionClaim(trx, view.id, APPROVABLE_STATUSES, 'approved', {
    outcome: 'approved',
    settlement_method: approval.settlementMethod as SettlementMethod,
    approved_amount: approved,
    payable_amount: payableAmount(approved, view.franchise),
    decided_at: moment.now,
    updated_at: moment.now,
  })
  if (!moved) throw decidedMeanwhile()
  return recordedClaim(trx, view.id, 'claim.approved', moment)
}

/** Denies a claim awaiting documents or under review, with a reason and a note the partner sees. */
export async function denyClaim(trx: Trx, decider: Decider, id: number, denial: Denial, moment: Moment) {
  const view = await findClaimToDecide(trx, decider, id)
  assertNoErrors(denialErrors(denial))
  if (!canDeny(view.status)) throw refusedFrom(view, 'denied', 'awaiting documents or under review')
  const moved = await transitionClaim(trx, view.id, DENIABLE_STATUSES, 'denied', {
    outcome: 'denied',
    reason_code: denial.reasonCode as DenialReason,
    note: denial.note.trim(),
    decided_at: moment.now,
    updated_at: moment.now,
  })
  if (!moved) throw decidedMeanwhile()
  return recordedClaim(trx, view.id, 'claim.denied', moment)
}

/**
 * Settles an approved claim with its reference (the repair order or transfer id). A replacement or
 * an indemnity ends the contract in the same transaction (its own cancellation event follows the
 * claim's); a repair leaves it in force.
 */
export async function settleClaim(
  trx: Trx,
  decider: Decider,
  id: number,
  reference: string | null,
  moment: Moment,
) {
  const view = await findClaimToDecide(trx, decider, id)
  const trimmed = reference?.trim() || null
  assertNoErrors(settlementErrors(trimmed))
  if (!canSettle(view.status)) throw refusedFrom(view, 'settled', 'approved')
  const moved = await transitionClaim(trx, view.id, SETTLEABLE_STATUSES, 'settled', {
    settlement_reference: trimmed,
    settled_at: moment.now,
    updated_at: moment.now,
  })
  if (!moved) throw new StateError('The claim was settled meanwhile by another operator.')
  const claim = await recordedClaim(trx, view.id, 'claim.settled', moment)
  if (view.settlement_method !== null && settlementEndsContract(view.settlement_method)) {
    const contract = contractOfColumns(view)
    await endContract(trx, view.partner_id, contract, 'claim_settled', moment.now, moment.rendering)
  }
  return claim
}

export interface DocumentsRequest {
  kinds: readonly string[]
  message: string
}

/**
 * Asks for documents on a claim under review: it awaits them again (`documents_pending`, event
 * `claim.documents_requested`) until a document of each kind is uploaded after this request, when
 * the upload's own rule moves it back to `under_review`. Operators only.
 */
export async function requestDocuments(trx: Trx, id: number, request: DocumentsRequest, moment: Moment) {
  const view = await findClaimToDecide(trx, { operator: true }, id)
  assertNoErrors(documentsRequestErrors(request))
  if (!canRequestDocuments(view.status)) throw refusedFrom(view, 'asked for documents', 'under review')
  const held = await documentKindsOf(trx, view.id)
  const moved = await transitionClaim(trx, view.id, DOCUMENTS_REQUESTABLE_STATUSES, 'documents_pending', {
    documents_request_kinds: JSON.stringify([...new Set(request.kinds as DocumentKind[])]),
    documents_request_message: request.message.trim(),
    documents_requested_at: moment.now,
    documents_request_after: Math.max(0, ...held.map((d) => d.id)),
    ...deadlineStartAfter('documents_pending', moment.now),
    updated_at: moment.now,
  })
  if (!moved) throw decidedMeanwhile()
  return recordedClaim(trx, view.id, 'claim.documents_requested', moment)
}

/** Records the claim's event and answers the claim as it now is. */
async function recordedClaim(
  trx: Trx,
  id: number,
  type: 'claim.approved' | 'claim.denied' | 'claim.settled' | 'claim.documents_requested',
  { now, rendering }: Moment,
) {
  return recordClaimEvent(trx, type, id, now, rendering.timeZone)
}
