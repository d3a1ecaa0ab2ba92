import type { Db, Trx } from '../../db/database.js'
import type { PartnerScope } from '../../db/partner-scope.js'
import { NotFoundError, StateError } from '../../shared/errors.js'
import type { RenderingContext } from '../events/event.service.js'
import { GatewayRefusedError, GatewayUnavailableError } from '../payments/payment.errors.js'
import { approvedCardCharge, type CardPaymentContext, chargeOnce } from '../payments/payment.service.js'
import type { PaymentGateway } from '../payments/payment-gateway.js'
import type { AnnualPlanRow } from './annual-plan.repository.js'
import { REFUND_RETRY_HOURS, refundRetryAt } from './annual-plan.rules.js'
import { recordAnnualPlanEvent } from './annual-plan-lifecycle.service.js'
import {
  claimRefund,
  failSucceededRefund,
  findDueRefunds as findDue,
  findRefundOfPlan,
  insertRefund,
  type RefundRow,
  recordInLedger,
  requeueRefund,
  settleRefund,
} from './annual-plan-refund.repository.js'

// Refunds that are paid (README, "Going live: card payments through Stripe"): opened at the cancellation's confirmation, paid by the
// worker through the own gateway, one idempotency key per refund so no retry pays twice.

export type { RefundRow }

const giveUpAfter = (now: string) => new Date(Date.parse(now) + REFUND_RETRY_HOURS * 3_600_000).toISOString()

/**
 * At the confirmation, in its transaction: a refund above 0 of a plan paid through the own gateway
 * becomes `pending`, for the worker to pay. A plan paid to the partner (notified) is the partner's
 * to refund; Amparo only reports it.
 */
export async function openRefund(trx: Trx, plan: AnnualPlanRow, amount: number, now: string): Promise<void> {
  if (amount <= 0) return
  const paymentReference = await approvedCardCharge(trx, plan.id)
  if (!paymentReference) return
  await insertRefund(trx, {
    annual_plan_id: plan.id,
    partner_id: plan.partner_id,
    amount,
    payment_reference: paymentReference,
    status: 'pending',
    next_attempt_at: now,
    give_up_at: giveUpAfter(now),
    created_at: now,
  })
}

/** Pending refunds the worker should pay at `now`, by id from `after`. */
export function findDueRefunds(
  db: Db,
  query: { now: string; after: number; limit: number; scope?: PartnerScope },
) {
  return findDue(db, query)
}

export type RefundAttempt = 'refunded' | 'retry' | 'failed'

/**
 * Pays one due refund on the gateway flow (chargeOnce): claimed, the gateway called outside any
 * transaction, the outcome written with its ledger row. An error is retried (`refundRetryAt`) until
 * 3 days have passed, then the refund is `failed`. Undefined when another worker holds it or it is
 * no longer due. Refunded but not recorded (the database failed after the gateway took it): the
 * claim is kept until it runs out, and the retry sends the same idempotency key, which the gateway
 * answers with the same refund.
 */
export async function payDueRefund(
  db: Db,
  gateway: PaymentGateway,
  id: number,
  context: Pick<CardPaymentContext, 'clock' | 'claimSeconds' | 'log'> & { rendering: RenderingContext },
): Promise<RefundAttempt | undefined> {
  const { log, rendering } = context
  let claimed: RefundRow | undefined
  const refund = () => {
    if (!claimed) throw new Error(`refund ${id} used before it was claimed`)
    return claimed
  }
  const details = () => ({
    refund_id: id,
    annual_plan_id: refund().annual_plan_id,
    attempt: refund().attempts + 1,
  })
  const outcome = await chargeOnce<string, RefundAttempt | undefined>(
    db,
    {
      claim: async (trx, now, until) => {
        claimed = await claimRefund(trx, id, now, until)
        return claimed !== undefined
      },
      // settleRefund ends the claim with the outcome, only if it is still this call's.
      release: async () => {},
      charge: () => {
        const { payment_reference, amount, annual_plan_id, partner_id, gateway_refund_id } = refund()
        // A refund Stripe failed later keeps that refund's id: the retry asks for a new refund
        // (its own key), not the failed one again (docs/decisions.md, Stripe's events).
        const key = gateway_refund_id ? `refund-${id}-after-${gateway_refund_id}` : `refund-${id}`
        return gateway.refund(payment_reference, amount, key, {
          partnerId: partner_id,
          reference: `annual-plan-${annual_plan_id}-refund-${id}`,
        })
      },
      // Read once the refund is claimed.
      get details() {
        return details()
      },
      settle: async (trx, refundId, at, until) => {
        const changes = {
          status: 'succeeded' as const,
          gateway_refund_id: refundId,
          refunded_at: at,
          last_error: null,
        }
        if (!(await settleRefund(trx, id, until, changes))) {
          throw new Error(`refund ${id} was taken over during its gateway call`)
        }
        await recordInLedger(trx, refund(), { outcome: 'refunded', transactionId: refundId }, at)
        await recordAnnualPlanEvent(trx, 'annual_plan.refund_updated', refund().annual_plan_id, at, rendering)
        return 'refunded'
      },
      unrecorded: (refundId) => ({
        message: 'refund paid but not recorded',
        details: { gateway_refund_id: refundId },
      }),
    },
    context,
    {
      onGatewayError: async (trx, error, now, until) => {
        const reason = reasonOf(error)
        if (reason === 'unexpected error')
          log.error({ err: error, ...details() }, 'refund failed unexpectedly')
        return recordFailure(trx, refund(), until, reason, now, rendering)
      },
    },
  )
  return outcome?.settled
}

async function recordFailure(
  trx: Trx,
  refund: RefundRow,
  until: string,
  reason: string,
  now: string,
  rendering: RenderingContext,
): Promise<RefundAttempt | undefined> {
  const retryAt = refundRetryAt(refund.attempts + 1, now, refund.give_up_at)
  const changes = retryAt
    ? { next_attempt_at: retryAt, last_error: reason }
    : { status: 'failed' as const, last_error: reason }
  if (!(await settleRefund(trx, refund.id, until, changes))) return undefined
  await recordInLedger(trx, refund, { outcome: 'failed', transactionId: null, declineCode: reason }, now)
  // refund_status changes only when the refund is given up (a retry keeps it `pending`).
  if (!retryAt)
    await recordAnnualPlanEvent(trx, 'annual_plan.refund_updated', refund.annual_plan_id, now, rendering)
  return retryAt ? 'retry' : 'failed'
}

/** What the ledger and the operator see of a failed attempt: never a message that could carry data. */
function reasonOf(error: unknown): string {
  if (error instanceof GatewayUnavailableError) return 'gateway_unavailable'
  if (error instanceof GatewayRefusedError) return 'gateway_refused'
  return 'unexpected error'
}

/**
 * Stripe failed a refund it had taken (`refund.failed`, or a refund updated to `failed`), in the
 * event's transaction: the refund is `failed`, back in the console's retry list, with a failed
 * attempt in the ledger. A refund of no plan's, or not `succeeded` (already failed), changes nothing.
 */
export async function failRefundAtGateway(
  trx: Trx,
  gatewayRefundId: string,
  at: string,
  rendering: RenderingContext,
): Promise<boolean> {
  const refund = await failSucceededRefund(trx, gatewayRefundId, 'refund_failed_at_gateway')
  if (!refund) return false
  await recordInLedger(
    trx,
    refund,
    { outcome: 'failed', transactionId: gatewayRefundId, declineCode: 'refund_failed_at_gateway' },
    at,
  )
  await recordAnnualPlanEvent(trx, 'annual_plan.refund_updated', refund.annual_plan_id, at, rendering)
  return true
}

/**
 * `amparo refund retry` and the console's retry, in the caller's transaction (with its audit
 * entry): a `failed` refund is pending again, due at once, with 3 more days of retries. The plan
 * has no refund → 404; one that is not failed → 422. Answers the refund as it now is.
 */
export async function requeueFailedRefund(
  trx: Trx,
  planId: number,
  now: string,
  rendering: RenderingContext,
): Promise<RefundRow> {
  const refund = await findRefundOfPlan(trx, planId)
  if (!refund) throw new NotFoundError('Refund')
  if (!(await requeueRefund(trx, refund.id, { now, giveUpAt: giveUpAfter(now) }))) {
    throw new StateError(`The refund of annual plan ${planId} is ${refund.status}, not failed.`)
  }
  await recordAnnualPlanEvent(trx, 'annual_plan.refund_updated', planId, now, rendering)
  return (await findRefundOfPlan(trx, planId)) as RefundRow
}
