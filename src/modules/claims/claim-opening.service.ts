import type { Trx } from '../../db/database.js'
import type { ClaimOpener } from '../../db/tables/claim.js'
import type { CoverageType } from '../../db/tables/plan.js'
import { type FieldErrors, StateError, ValidationError } from '../../shared/errors.js'
import { formatDate, parseLocalTimestamp } from '../../shared/time.js'
import { annualPlanInForce, subscriptionInForce } from '../contracts/contract.rules.js'
import { findContractForUpdate } from '../contracts/contract.service.js'
import type { ContractRef } from '../contracts/contract-reference.js'
import { deviceKey } from '../devices/device.rules.js'
import { coverageEndsAt } from '../subscriptions/subscription.rules.js'
import type { ClaimResource } from './claim.mapper.js'
import { insertClaim, nextClaimSequence } from './claim.repository.js'
import {
  claimNumber,
  fraudSignals,
  fraudWindowsOf,
  noticeRefusal,
  perilCovered,
  policeReportFromTheFuture,
  policeReportMissing,
  yearlyLimitReached,
  yearlyLimitSince,
} from './claim.rules.js'
import type { ClaimBody } from './claim.schemas.js'
import { recordClaimEvent } from './claim.service.js'
import {
  countApprovedSince,
  countCustomerClaimsSince,
  countDeviceClaimsSince,
  findInstallmentFacts,
  findLastCardChange,
  hasOpenClaim,
} from './claim-contract.repository.js'

// POST /claims (README, Claims): the opening rules, in the order the answer reports them (the
// request's fields, then the contract's facts, then its state), the fraud signals, the number.

/** What the opening rules read of a contract, whichever kind it is. */
interface ClaimContract {
  ref: ContractRef
  planId: number
  customerId: number
  customerDocument: string
  modelId: number
  serials: (string | null)[]
  lmi: number
  franchise: number
  coverageTypes: CoverageType[]
  noticeDays: number
  maxClaimsPerYear: number
  coverageStartedAt: string | null
  inForceAt: (occurredAt: string) => boolean
  lastCardChangeBefore: (occurredAt: string) => Promise<string | null>
}

/**
 * The partner's contract, locked (findContractForUpdate), with what the opening rules read of it:
 * a subscription is in force by its installments, an annual plan by its coverage window.
 */
async function claimContract(
  trx: Trx,
  partnerId: number,
  ref: ContractRef,
  timeZone: string,
): Promise<ClaimContract | undefined> {
  const contract = await findContractForUpdate(trx, partnerId, ref)
  if (!contract) return undefined
  const facts = {
    ref,
    planId: contract.plan.id,
    customerId: contract.customerId,
    customerDocument: contract.customerDocument,
    modelId: contract.modelId,
    serials: contract.serials,
    lmi: contract.lmi,
    franchise: contract.franchise,
    ...contract.claimTerms,
  }
  if (contract.kind === 'subscription') {
    const installments = await findInstallmentFacts(trx, contract.id)
    const first = installments.find((i) => i.number === 1)
    const coverage = {
      status: contract.status,
      firstPaidAt: first?.status === 'paid' ? first.paid_at : null,
      // The subscription's own end (the last installment's month): see subscription.rules.ts.
      endsAt: coverageEndsAt(contract.endsOn, timeZone),
      installments: installments.map((i) => ({ dueDate: i.due_date, paid: i.status === 'paid' })),
    }
    return {
      ...facts,
      coverageStartedAt: coverage.firstPaidAt,
      inForceAt: (at) => subscriptionInForce(coverage, at, formatDate(at, timeZone)),
      lastCardChangeBefore: (at) => findLastCardChange(trx, contract.id, at),
    }
  }
  // A plan canceled without a confirmed cancellation (a claim settled it) ended when it changed.
  const canceledAt = contract.status === 'canceled' ? (contract.canceledAt ?? contract.updatedAt) : null
  const coverage = { startsAt: contract.startsAt, endsAt: contract.endsAt, canceledAt }
  return {
    ...facts,
    coverageStartedAt: contract.startsAt,
    inForceAt: (at) => annualPlanInForce(coverage, at),
    lastCardChangeBefore: async () => null,
  }
}

/** The contract the body names, or its field's error. */
async function contractOf(
  trx: Trx,
  partnerId: number,
  body: ClaimBody,
  timeZone: string,
  errors: FieldErrors,
): Promise<ClaimContract | undefined> {
  const subscriptionId = body.subscription_id ?? null
  const annualPlanId = body.annual_plan_id ?? null
  if (subscriptionId === null && annualPlanId === null) {
    errors.subscription_id = ['The subscription id field is required when annual plan id is not present.']
    return undefined
  }
  if (subscriptionId !== null && annualPlanId !== null) {
    errors.subscription_id = ['The subscription id field prohibits annual plan id from being present.']
    return undefined
  }
  if (subscriptionId !== null) {
    const contract = await claimContract(trx, partnerId, { subscriptionId }, timeZone)
    if (!contract) errors.subscription_id = ['The selected subscription id is invalid.']
    return contract
  }
  const contract = await claimContract(trx, partnerId, { annualPlanId: annualPlanId as number }, timeZone)
  if (!contract) errors.annual_plan_id = ['The selected annual plan id is invalid.']
  return contract
}

/**
 * Opens a claim `documents_pending` at `now` (the partner's clock) and writes `claim.opened`;
 * answers the claim's resource. 422 `validation_failed` under the field at fault, `invalid_state` (errors.status)
 * for another open claim or the yearly limit. `openedBy`: the partner's API, or the insured's portal.
 */
export async function openClaim(
  trx: Trx,
  partnerId: number,
  body: ClaimBody,
  now: string,
  timeZone: string,
  openedBy: ClaimOpener = 'partner',
): Promise<ClaimResource> {
  const errors: FieldErrors = {}
  const occurredAt = parseLocalTimestamp(body.occurred_at, timeZone)
  if (occurredAt === null) {
    errors.occurred_at = [
      'The occurred at field must be a valid date and time in the format YYYY-MM-DD HH:MM:SS.',
    ]
  }
  const contract = await contractOf(trx, partnerId, body, timeZone, errors)
  if (contract && occurredAt !== null) {
    const notice = noticeRefusal(occurredAt, now, contract.noticeDays)
    if (notice) errors.occurred_at = [notice]
    else if (!contract.inForceAt(occurredAt)) {
      errors.occurred_at = ['The contract was not in force when the loss occurred.']
    }
    if (!perilCovered(body.type, contract.coverageTypes)) {
      errors.type = ['The selected type is not covered by the plan.']
    }
  }
  const policeReport = body.police_report ?? null
  if (policeReportMissing(body.type, policeReport?.number)) {
    errors['police_report.number'] = [
      'The police report number field is required for robbery and qualified theft.',
    ]
  }
  if (policeReport?.issued_on && policeReportFromTheFuture(policeReport.issued_on, now, timeZone)) {
    errors['police_report.issued_on'] = ['The police report issued on must not be in the future.']
  }
  if (!contract || occurredAt === null || Object.keys(errors).length > 0) throw new ValidationError(errors)

  if (await hasOpenClaim(trx, contract.ref)) {
    throw new StateError(
      'The contract has another claim open: withdraw it or wait for its decision and settlement.',
    )
  }
  const approved = await countApprovedSince(trx, contract.ref, yearlyLimitSince(occurredAt))
  if (yearlyLimitReached(approved, contract.maxClaimsPerYear)) {
    throw new StateError(
      `The contract has reached its limit of ${contract.maxClaimsPerYear} approved claims in 365 days.`,
    )
  }

  // A serial that names no device (letters of another script, kept as contracted) matches none.
  const keys = contract.serials.map((s) => (s ? deviceKey(s) : '')).filter((key) => key !== '')
  const windows = fraudWindowsOf(now)
  const signals = fraudSignals({
    occurredAt,
    coverageStartedAt: contract.coverageStartedAt,
    sameDeviceClaims: await countDeviceClaimsSince(trx, keys, windows.deviceSince),
    sameCustomerClaims: await countCustomerClaimsSince(trx, contract.customerDocument, windows.customerSince),
    lastCardChangeAt: await contract.lastCardChangeBefore(occurredAt),
  })

  const year = Number(formatDate(now, timeZone).slice(0, 4))
  const id = await insertClaim(trx, {
    number: claimNumber(year, await nextClaimSequence(trx, year)),
    partner_id: partnerId,
    subscription_id: 'subscriptionId' in contract.ref ? contract.ref.subscriptionId : null,
    annual_plan_id: 'annualPlanId' in contract.ref ? contract.ref.annualPlanId : null,
    plan_id: contract.planId,
    customer_id: contract.customerId,
    customer_document: contract.customerDocument,
    model_id: contract.modelId,
    // A contract may name its device by its second serial (or IMEI) only.
    serial_number: contract.serials.find((serial) => !!serial) ?? null,
    device_key: keys[0] ?? null,
    second_device_key: keys[1] ?? null,
    type: body.type,
    status: 'documents_pending',
    occurred_at: occurredAt,
    description: body.description,
    police_report_number: policeReport?.number?.trim() || null,
    police_report_issued_on: policeReport?.issued_on ?? null,
    lmi: contract.lmi,
    franchise: contract.franchise,
    fraud_signals: JSON.stringify(signals),
    opened_by: openedBy,
    created_at: now,
    updated_at: now,
  })
  return recordClaimEvent(trx, 'claim.opened', id, now, timeZone)
}
