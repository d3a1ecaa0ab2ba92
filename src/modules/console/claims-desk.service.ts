import type { Db, Reader, Trx } from '../../db/database.js'
import type { ClaimStatus, FraudSignal } from '../../db/tables/claim.js'
import { NotFoundError, StateError } from '../../shared/errors.js'
import {
  ANNUAL_PLAN_STATUS_LABELS,
  DEADLINE_STATE_LABELS,
  FRAUD_SIGNAL_LABELS,
  SUBSCRIPTION_STATUS_LABELS,
} from '../../shared/labels.js'
import { documentsRequestFacts, documentsRequestOf } from '../claims/claim.mapper.js'
import {
  claimStatusLabel,
  claimTypeLabel,
  isOpen,
  payableAmount,
  requiredDocuments,
} from '../claims/claim.rules.js'
import { ageInDays, claimDeadline } from '../claims/claim-deadline.rules.js'
import {
  approveClaim,
  denyClaim,
  type Moment,
  requestDocuments,
  settleClaim,
} from '../claims/claim-decision.service.js'
import { claimDocumentFile } from '../claims/claim-document.service.js'
import { fraudEvidence } from '../claims/claim-evidence.service.js'
import { findContract } from '../contracts/contract.service.js'
import { contractOfColumns } from '../contracts/contract-reference.js'
import { recordAudit } from '../operators/audit.service.js'
import { activityOf, latestBy } from './claim-activity.service.js'
import {
  claimIdsOfContract,
  claimQueue,
  type DeskClaimRow,
  documentsOf,
  eventsOfObjects,
  findDeskClaim,
  installmentIdsOf,
  type QueueFilter,
} from './claims-desk.repository.js'
import { DecisionConflictError } from './console.errors.js'
import { pageOf } from './console.schemas.js'

// The claims desk (README, Operator console: the operator API behind the screens): the queue, a claim's page, and the
// decisions, taken through the same claim services as `amparo claim approve|deny|settle`.

const signalsOf = (json: string) => JSON.parse(json) as FraudSignal[]
const iso = (instant: string | null) => (instant === null ? null : new Date(instant).toISOString())

/** `open`: what still needs an operator (awaiting documents, under review, approved not settled). */
export const OPEN_QUEUE: readonly ClaimStatus[] = ['documents_pending', 'under_review', 'approved']

/** The queue's filters as the console's query names them (the list and its CSV take the same). */
export interface QueueQuery {
  status?: ClaimStatus | 'open'
  type?: QueueFilter['type']
  partner_id?: number
  fraud?: boolean
  assignee?: 'me' | 'none'
}

/** `me`: the signed-in operator, whom `assignee=me` names. */
export function queueFilterOf(query: QueueQuery, me: number): QueueFilter {
  return {
    statuses: query.status === undefined ? undefined : query.status === 'open' ? OPEN_QUEUE : [query.status],
    type: query.type,
    partnerId: query.partner_id,
    fraud: query.fraud,
    assigneeId: query.assignee === undefined ? undefined : query.assignee === 'me' ? me : null,
  }
}

export async function claimQueuePage(
  db: Db,
  query: QueueQuery,
  page: { page: number; perPage: number },
  { me, now, timeZone }: { me: number; now: string; timeZone: string },
) {
  const filter = queueFilterOf(query, me)
  // Open claims by deadline (README, Operator console: Sinistros); a list with closed ones oldest first.
  const order = filter.statuses?.every(isOpen) ? 'deadline' : 'opening'
  const { rows, total } = await claimQueue(db, filter, order, {
    offset: (page.page - 1) * page.perPage,
    limit: page.perPage,
  })
  const data = rows.map((row) => ({
    id: row.id,
    number: row.number,
    status: row.status,
    status_label: claimStatusLabel(row.status),
    type: row.type,
    type_label: claimTypeLabel(row.type),
    partner: { id: row.partner_id, name: row.partner_name },
    customer_name: row.customer_name,
    device: { model: { id: row.model_id, name: row.model_name }, serial_number: row.serial_number },
    occurred_at: iso(row.occurred_at) as string,
    opened_at: iso(row.created_at) as string,
    age_days: ageInDays(iso(row.created_at) as string, now, timeZone),
    deadline: deadlineOf(row, now, timeZone),
    fraud_signals: signalsOf(row.fraud_signals),
    lmi_cents: Number(row.lmi),
    franchise_cents: Number(row.franchise),
    approved_amount_cents: row.approved_amount === null ? null : Number(row.approved_amount),
    payable_amount_cents: row.payable_amount === null ? null : Number(row.payable_amount),
    assignee: assigneeOf(row),
  }))
  return pageOf(data, total, page.page, page.perPage)
}

/** The claim's deadline as the console shows it (claim-deadline.rules.ts), or null once closed. */
function deadlineOf(
  row: { status: ClaimStatus; deadline_started_at: string | null },
  now: string,
  timeZone: string,
) {
  const deadline = claimDeadline(
    { status: row.status, deadlineStartedAt: iso(row.deadline_started_at) },
    now,
    timeZone,
  )
  if (deadline === null) return null
  return {
    state: deadline.state,
    state_label: DEADLINE_STATE_LABELS[deadline.state],
    due_on: deadline.dueOn,
    days_left: deadline.daysLeft,
  }
}

const assigneeOf = (row: { assignee_id: number | null; assignee_email: string | null }) =>
  row.assignee_id === null ? null : { id: row.assignee_id, email: row.assignee_email ?? '' }

async function contractOf(db: Reader, claim: DeskClaimRow) {
  const c = await findContract(db, claim.partner_id, contractOfColumns(claim))
  if (!c) throw new Error(`the contract of claim ${claim.id} was not found`)
  const common = {
    id: c.id,
    plan: c.plan,
    lmi_cents: Number(c.lmi),
    franchise_cents: Number(c.franchise),
    paid_with: c.paidWith,
    serial_numbers: c.serials.filter((x): x is string => x !== null),
    contracted_at: iso(c.createdAt) as string,
  }
  if (c.kind === 'subscription') {
    return {
      ...common,
      kind: c.kind,
      policy_number: c.policyNumber,
      status: c.status,
      status_label: SUBSCRIPTION_STATUS_LABELS[c.status],
      starts_at: iso(c.createdAt),
      ends_on: c.endsOn,
      ends_at: null,
      premium_cents: Number(c.monthlyPremium) * c.installmentsCount,
      installments: c.installmentsCount,
    }
  }
  return {
    ...common,
    kind: c.kind,
    policy_number: c.policyNumber,
    status: c.status,
    status_label: ANNUAL_PLAN_STATUS_LABELS[c.status],
    starts_at: iso(c.startsAt),
    ends_on: null,
    ends_at: iso(c.endsAt),
    premium_cents: Number(c.premium),
    installments: 1,
  }
}

/** The contract's events (its own, its installments', its claims'), oldest first. */
async function timelineOf(db: Reader, claim: DeskClaimRow) {
  const [claimIds, installmentIds] = await Promise.all([
    claimIdsOfContract(db, { subscriptionId: claim.subscription_id, annualPlanId: claim.annual_plan_id }),
    claim.subscription_id === null ? [] : installmentIdsOf(db, claim.subscription_id),
  ])
  const contractId = (claim.subscription_id ?? claim.annual_plan_id) as number
  const wanted: [string, Set<number>][] = [
    [claim.subscription_id === null ? 'annual_plan.' : 'subscription.', new Set([contractId])],
    ['installment.', new Set(installmentIds)],
    ['claim.', new Set(claimIds)],
  ]
  const events = await eventsOfObjects(db, claim.partner_id, [
    ...new Set([contractId, ...installmentIds, ...claimIds]),
  ])
  return events
    .filter((e) => wanted.some(([prefix, ids]) => e.type.startsWith(prefix) && ids.has(Number(e.object_id))))
    .map((e) => ({
      id: e.public_id,
      type: e.type,
      object_id: Number(e.object_id),
      created_at: iso(e.created_at) as string,
    }))
}

/** A claim's page: the claim, its contract, customer, device, timeline, documents and payable preview. */
export async function deskClaim(db: Reader, id: number) {
  const claim = await findDeskClaim(db, id)
  if (!claim) throw new NotFoundError('Claim')
  const [contract, documents, timeline] = await Promise.all([
    contractOf(db, claim),
    documentsOf(db, claim.id),
    timelineOf(db, claim),
  ])
  const [activity, evidence] = await Promise.all([activityOf(db, claim, documents), fraudEvidence(db, claim)])
  const lmi = Number(claim.lmi)
  const franchise = Number(claim.franchise)
  return {
    id: claim.id,
    number: claim.number,
    status: claim.status,
    status_label: claimStatusLabel(claim.status),
    type: claim.type,
    type_label: claimTypeLabel(claim.type),
    partner: { id: claim.partner_id, name: claim.partner_name },
    occurred_at: iso(claim.occurred_at) as string,
    opened_at: iso(claim.created_at) as string,
    updated_at: iso(claim.updated_at) as string,
    description: claim.description,
    police_report:
      claim.police_report_number === null
        ? null
        : { number: claim.police_report_number, issued_on: claim.police_report_issued_on },
    contract,
    customer: {
      id: claim.customer_id,
      name: claim.customer_name,
      document: claim.customer_document_now,
      document_kind: claim.customer_document_kind,
      email: claim.customer_email,
      phone: claim.customer_phone,
      city: claim.customer_city,
      state: claim.customer_state,
    },
    device: {
      brand: claim.brand_name,
      model: { id: claim.model_id, name: claim.model_name },
      serial_number: claim.serial_number,
    },
    timeline,
    required_documents: requiredDocuments(claim.type, documents, documentsRequestFacts(claim)),
    documents_request: documentsRequestOf(claim, (instant) => iso(instant) as string),
    documents: documents.map((d) => ({
      id: d.id,
      kind: d.kind,
      filename: d.filename,
      content_type: d.content_type,
      size: d.size,
      sha256: d.sha256,
      uploaded_at: iso(d.uploaded_at) as string,
      url: `/api/claims/${claim.id}/documents/${d.id}`,
    })),
    fraud_signals: signalsOf(claim.fraud_signals),
    fraud_evidence: evidence.map((e) => ({ ...e, label: FRAUD_SIGNAL_LABELS[e.signal] })),
    decision:
      claim.outcome === null
        ? null
        : {
            outcome: claim.outcome,
            settlement_method: claim.settlement_method,
            approved_amount_cents: claim.approved_amount === null ? null : Number(claim.approved_amount),
            payable_amount_cents: claim.payable_amount === null ? null : Number(claim.payable_amount),
            reason_code: claim.reason_code,
            note: claim.note,
            decided_at: iso(claim.decided_at) as string,
            decided_by: latestBy(activity, claim.outcome),
          },
    settlement:
      claim.settled_at === null
        ? null
        : {
            reference: claim.settlement_reference,
            settled_at: iso(claim.settled_at) as string,
            settled_by: latestBy(activity, 'settled'),
          },
    assignee: assigneeOf(claim),
    activity,
    payable_preview: {
      lmi_cents: lmi,
      franchise_cents: franchise,
      max_approved_cents: lmi,
      payable_at_max_cents: payableAmount(lmi, franchise),
    },
  }
}

/** A document's bytes, whoever's claim it is. */
export async function deskDocument(db: Db, claimId: number, documentId: number) {
  const claim = await findDeskClaim(db, claimId)
  if (!claim) throw new NotFoundError('Claim')
  return claimDocumentFile(db, claim.partner_id, claimId, documentId)
}

export interface Operator {
  id: number
  email: string
}

export type Decision =
  | { action: 'approve'; settlementMethod: string; approvedAmountCents: number }
  | { action: 'deny'; reasonCode: string; note: string }
  | { action: 'settle'; reference: string }
  | { action: 'request_documents'; kinds: string[]; message: string }

const OPERATOR = { operator: true } as const

const auditState = (claim: DeskClaimRow) => ({
  status: claim.status,
  outcome: claim.outcome,
  settlement_method: claim.settlement_method,
  approved_amount: claim.approved_amount === null ? null : Number(claim.approved_amount),
  payable_amount: claim.payable_amount === null ? null : Number(claim.payable_amount),
  reason_code: claim.reason_code,
  settlement_reference: claim.settlement_reference,
  documents_request: documentsRequestOf(claim, (instant) => iso(instant) as string),
})

/**
 * One decision in the request's transaction, audited in it. A claim whose status no longer allows
 * it (another operator decided it first, or the partner withdrew it) → 409: the screen was stale.
 */
export async function decideOnDesk(
  trx: Trx,
  who: { operator: Operator; ip: string | null },
  id: number,
  decision: Decision,
  moment: Moment,
) {
  const before = await findDeskClaim(trx, id)
  if (!before) throw new NotFoundError('Claim')
  try {
    if (decision.action === 'approve') {
      const approval = {
        settlementMethod: decision.settlementMethod,
        approvedAmount: decision.approvedAmountCents,
      }
      await approveClaim(trx, OPERATOR, id, approval, moment)
    } else if (decision.action === 'deny') {
      await denyClaim(trx, OPERATOR, id, { reasonCode: decision.reasonCode, note: decision.note }, moment)
    } else if (decision.action === 'settle') {
      await settleClaim(trx, OPERATOR, id, decision.reference, moment)
    } else {
      await requestDocuments(trx, id, { kinds: decision.kinds, message: decision.message }, moment)
    }
  } catch (error) {
    if (error instanceof StateError)
      throw new DecisionConflictError(error.errors?.status?.[0] ?? error.message)
    throw error
  }
  const after = (await findDeskClaim(trx, id)) as DeskClaimRow
  await recordAudit(trx, {
    operator: who.operator,
    action: `claim.${decision.action}`,
    recordType: 'claim',
    recordId: String(id),
    before: auditState(before),
    after: auditState(after),
    ip: who.ip,
    at: moment.now,
  })
  return deskClaim(trx, id)
}
