import { randomBytes } from 'node:crypto'
import type { Trx } from '../../db/database.js'
import { NotFoundError, StateError } from '../../shared/errors.js'
import { addDays, formatDate, type Moment } from '../../shared/time.js'
import type { RenderingContext } from '../events/event.service.js'
import { PaymentInProgressError, UNRECORDED_RETRY_AFTER_SECONDS } from '../payments/payment.errors.js'
import { type AnnualPlanRow, findAnnualPlanRow } from './annual-plan.repository.js'
import { newProtocol, REFUND_DUE_DAYS, refundAt, statusAt } from './annual-plan.rules.js'
import { requireAnnualPlanRow } from './annual-plan.service.js'
import {
  type CancellationRow,
  confirmClaimSettledCancellation,
  findCancellation,
  hasUnrecordedCharge,
  insertCancellation,
  markConfirmed,
  touchAnnualPlan,
} from './annual-plan-cancellation.repository.js'
import { cancelAnnualPlan, recordAnnualPlanEvent } from './annual-plan-lifecycle.service.js'
import { openRefund } from './annual-plan-refund.service.js'

/** Draws again only on a protocol collision, which at 50 random bits practically never happens. */
const PROTOCOL_ATTEMPTS = 3

/**
 * Opens the plan's cancellation, or returns the one already open: a repeat, or a request racing
 * another, gets the same protocol. The plan's status does not change until it is confirmed.
 * Answers the plan as this transaction read it, which the refund shown is computed from.
 */
export async function requestCancellation(
  trx: Trx,
  partnerId: number,
  id: number,
  reason: string | null,
  now: string,
  rendering: RenderingContext,
): Promise<{ plan: AnnualPlanRow; cancellation: CancellationRow }> {
  const plan = await requireAnnualPlanRow(trx, partnerId, id)
  for (let attempt = 0; attempt < PROTOCOL_ATTEMPTS; attempt++) {
    const open = await findCancellation(trx, plan.id)
    // An open request is answered even once the cover has ended: it can still be confirmed.
    if (open?.status === 'requested') return { plan, cancellation: open }
    const status = statusAt(plan, now)
    if (status === 'canceled' || status === 'expired') {
      throw new StateError(`The annual plan is ${status}: there is nothing left to cancel.`)
    }
    const values = {
      annual_plan_id: plan.id,
      protocol: newProtocol(randomBytes),
      status: 'requested' as const,
      reason,
      requested_at: now,
    }
    if (await insertCancellation(trx, values)) {
      await touchAnnualPlan(trx, plan.id, now)
      await recordAnnualPlanEvent(trx, 'annual_plan.cancellation_requested', plan.id, now, rendering)
    }
  }
  throw new Error(`could not open a cancellation of annual plan ${plan.id}`)
}

/**
 * Confirms the plan's cancellation named by `protocol`: the plan is canceled and the refund fixed
 * (see `refundAmount`), due 15 days later, and opened for the worker to pay (`openRefund`). A repeat finds it confirmed and changes nothing.
 * Answers the refund fixed, in cents (null when a concurrent confirmation won).
 */
export async function confirmCancellation(
  trx: Trx,
  partnerId: number,
  id: number,
  protocol: string,
  { now, timeZone }: Moment,
  rendering: RenderingContext,
): Promise<number | null> {
  const plan = await requireAnnualPlanRow(trx, partnerId, id)
  const cancellation = await findCancellation(trx, plan.id)
  if (!cancellation || cancellation.protocol !== protocol) throw new NotFoundError('Cancellation')
  if (cancellation.status === 'confirmed') return cancellation.refund_amount
  const canceled = await cancelAnnualPlan(trx, plan.id, now)
  if (!canceled) {
    const current = await findAnnualPlanRow(trx, plan.partner_id, plan.id)
    // A concurrent confirmation won: it wrote the same confirmation this one would have.
    if (current?.status === 'canceled') return null
    throw await inProgress(trx, plan.id)
  }
  const confirmedOn = formatDate(now, timeZone)
  const refund = refundAt(canceled, now, timeZone)
  await markConfirmed(trx, cancellation.id, {
    confirmed_at: now,
    refund_amount: refund,
    refund_due_date: addDays(confirmedOn, REFUND_DUE_DAYS),
  })
  await openRefund(trx, canceled, refund, now)
  await recordAnnualPlanEvent(trx, 'annual_plan.canceled', plan.id, now, rendering)
  return refund
}

/**
 * Why the plan could not be canceled: a card charge holds it, or one the gateway answered awaits
 * the worker's recording (docs/decisions.md, "A cancellation waits for an unrecorded first charge").
 */
async function inProgress(trx: Trx, planId: number): Promise<PaymentInProgressError> {
  if (!(await hasUnrecordedCharge(trx, planId))) return new PaymentInProgressError()
  return new PaymentInProgressError(
    'A card charge of this plan went to the gateway and is being recorded: try again after Retry-After seconds.',
    UNRECORDED_RETRY_AFTER_SECONDS,
  )
}

/**
 * A claim settled by replacement or indemnity ends the plan (README, Claims): canceled with the
 * reason `claim_settled` and no refund, which frees its IMEIs. A plan canceled or expired already
 * has nothing left to end. While a card charge holds it, 409 (the caller's transaction rolls back).
 */
export async function endByClaimSettlement(
  trx: Trx,
  partnerId: number,
  planId: number,
  now: string,
  rendering: RenderingContext,
): Promise<void> {
  const plan = await requireAnnualPlanRow(trx, partnerId, planId)
  const status = statusAt(plan, now)
  if (status === 'canceled' || status === 'expired') return
  if (!(await cancelAnnualPlan(trx, planId, now))) throw await inProgress(trx, planId)
  await confirmClaimSettledCancellation(trx, planId, newProtocol(randomBytes), now)
  await recordAnnualPlanEvent(trx, 'annual_plan.canceled', planId, now, rendering)
}
