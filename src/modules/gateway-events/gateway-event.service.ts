import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { GatewayModeError, StateError } from '../../shared/errors.js'
import { payAnnualPlanByCode } from '../annual-plans/annual-plan-code.service.js'
import { annualPlanCharges } from '../annual-plans/annual-plan-payment.service.js'
import { failRefundAtGateway } from '../annual-plans/annual-plan-refund.service.js'
import { reconcileFirstCharge } from '../contracts/first-card-payment.service.js'
import { findUnrecordedChargeOf } from '../payments/first-charge.service.js'
import { codeStatusAt, type IntentOutcome } from '../payments/payment-code.rules.js'
import {
  isCodeReference,
  type PaymentCodeRow,
  requirePartnerCode,
  settleCode,
} from '../payments/payment-code.service.js'
import type { ChargeResult } from '../payments/payment-gateway.js'
import { partnerTime } from '../sandbox/sandbox-clock.service.js'
import { payInstallmentByCode } from '../subscriptions/subscription-code.service.js'
import { firstInstallmentCharges } from '../subscriptions/subscription-payment.service.js'
import { applyDisputeEvent } from './dispute.service.js'
import type { EventAnswer, GatewayEventContext, StripeEventInput } from './gateway-event.context.js'
import { markEventApplied } from './gateway-event.repository.js'

// Stripe's own events (README, Going live: Stripe's events), once verified: each applied once, by
// its id, kept in the transaction of its effect, so a delivery that comes again, or two at once,
// write nothing twice; an event about something already past it (an outcome after a later one)
// changes nothing.

export type { EventAnswer, GatewayEventContext, StripeEventInput }

const INTENT_OUTCOMES: Record<string, IntentOutcome> = {
  'payment_intent.succeeded': 'succeeded',
  'payment_intent.payment_failed': 'payment_failed',
  'payment_intent.canceled': 'canceled',
}

/** Stripe's events about a refund: each carries the Refund, `failed` when Stripe failed it. */
const REFUND_EVENTS = new Set(['refund.failed', 'refund.updated', 'charge.refund.updated'])

/** Applies one verified Stripe event (see the module's comment). */
export async function applyStripeEvent(
  db: Db,
  event: StripeEventInput,
  context: GatewayEventContext,
): Promise<EventAnswer> {
  const outcome = INTENT_OUTCOMES[event.type]
  if (outcome) return applyIntentEvent(db, event, outcome, context)
  if (event.type === 'charge.dispute.created' || event.type === 'charge.dispute.closed')
    return applyDisputeEvent(db, event, event.type, context)
  if (REFUND_EVENTS.has(event.type)) return applyRefundEvent(db, event, context)
  return onlyRecorded(db, event, context.clock.now().toISOString())
}

/** An event with nothing to apply: kept, so its repeats answer as duplicates too. */
async function onlyRecorded(db: Db, event: StripeEventInput, at: string): Promise<EventAnswer> {
  const first = await retryingTransaction(db, (trx) => markEventApplied(trx, event.id, event.type, at))
  return first ? 'ignored' : 'duplicate'
}

/** A refund Stripe failed after taking it: back to the console's retry list (failRefundAtGateway). */
async function applyRefundEvent(
  db: Db,
  event: StripeEventInput,
  context: GatewayEventContext,
): Promise<EventAnswer> {
  const refund = event.data.object as { id?: unknown; status?: unknown }
  const at = context.clock.now().toISOString()
  if (refund.status !== 'failed' || typeof refund.id !== 'string') return onlyRecorded(db, event, at)
  const refundId = refund.id
  return retryingTransaction(db, async (trx) => {
    if (!(await markEventApplied(trx, event.id, event.type, at))) return 'duplicate'
    return (await failRefundAtGateway(trx, refundId, at, context.rendering)) ? 'applied' : 'ignored'
  })
}

const metadataOf = (object: object) =>
  ((object as { metadata?: unknown }).metadata ?? {}) as {
    amparo_partner_id?: string
    amparo_reference?: string
  }

/**
 * A PaymentIntent's outcome: a PIX code's or boleto's settles it (and pays its item); a first card
 * charge whose answer was lost (its attempt unrecorded) is recorded now, as the worker would have
 * (the charge is asked again with its key, so the gateway's own answer is what is recorded).
 * Anything else (a card charge already recorded, the recurrence's, which its retry settles) is
 * only kept.
 */
async function applyIntentEvent(
  db: Db,
  event: StripeEventInput,
  outcome: IntentOutcome,
  context: GatewayEventContext,
): Promise<EventAnswer> {
  const reference = String((event.data.object as { id?: unknown }).id ?? '')
  const { amparo_partner_id: partner, amparo_reference: label } = metadataOf(event.data.object)
  const partnerId = Number(partner)
  const at = Number.isInteger(partnerId)
    ? (await partnerTime(db, partnerId, context.clock, context.sandboxClocks)).toISOString()
    : context.clock.now().toISOString()
  if (await isCodeReference(db, reference)) {
    return retryingTransaction(db, async (trx) => {
      if (!(await markEventApplied(trx, event.id, event.type, at))) return 'duplicate'
      await applyCodeOutcome(trx, reference, outcome, at, context)
      return 'applied'
    })
  }
  const attempt =
    label && Number.isInteger(partnerId) ? await findUnrecordedChargeOf(db, partnerId, label) : undefined
  if (!attempt || !context.gateway) return onlyRecorded(db, event, at)
  let first = true
  const settleIn = (work: (trx: Trx) => Promise<ChargeResult>) =>
    retryingTransaction(db, async (trx) => {
      first = await markEventApplied(trx, event.id, event.type, at)
      return work(trx)
    })
  const clock = { now: () => new Date(at) }
  const recorded =
    attempt.purpose === 'first_installment'
      ? await reconcileFirstCharge(
          db,
          context.gateway,
          attempt,
          firstInstallmentCharges(db, context.rendering),
          clock,
          settleIn,
        )
      : await reconcileFirstCharge(
          db,
          context.gateway,
          attempt,
          annualPlanCharges(db, context.rendering),
          clock,
          settleIn,
        )
  context.log.info(
    { card_attempt_id: attempt.id, stripe_event: event.id, approved: recorded.approved },
    'unrecorded card charge recorded from a gateway event',
  )
  return first ? 'applied' : 'duplicate'
}

/**
 * A code's PaymentIntent outcome, in the event's transaction: paid, its installment or plan paid
 * with its events. A code paid for an item no longer payable (canceled, or paid another way,
 * meanwhile) took money for nothing: the log names it for a refund by hand.
 */
export async function applyCodeOutcome(
  trx: Trx,
  reference: string,
  outcome: IntentOutcome,
  at: string,
  context: Pick<GatewayEventContext, 'rendering' | 'log'>,
): Promise<PaymentCodeRow | undefined> {
  const moved = await settleCode(trx, reference, outcome, at)
  if (moved?.status !== 'paid') return moved
  const paid =
    moved.installment_id === null
      ? await payAnnualPlanByCode(trx, moved, at, context.rendering)
      : await payInstallmentByCode(trx, moved, at, context.rendering)
  if (!paid) {
    context.log.error(
      { payment_code_id: moved.id, transaction_id: reference },
      'payment code paid for something no longer payable: refund it by hand',
    )
  }
  return moved
}

/**
 * The sandbox's payment of a PIX code or boleto (`POST /sandbox/payments/{id}/pay`): what Stripe's
 * `payment_intent.succeeded` does, at the partner's clock. Only the sandbox gateway's codes (with
 * Stripe the customer pays at Stripe, test mode included: 422 `errors.gateway`); an expired or ended
 * code → 422 `errors.status`; a paid one answers as it is.
 */
export async function paySandboxCode(
  trx: Trx,
  partnerId: number,
  id: number,
  {
    now,
    sandboxGateway,
    ...context
  }: { now: string; sandboxGateway: boolean } & Pick<GatewayEventContext, 'rendering' | 'log'>,
): Promise<PaymentCodeRow> {
  const code = await requirePartnerCode(trx, partnerId, id)
  if (!sandboxGateway) {
    throw new GatewayModeError(
      'Only the sandbox gateway’s payments are paid here; Stripe’s are paid at Stripe.',
    )
  }
  const status = codeStatusAt(code, now)
  if (status === 'paid') return code
  if (status !== 'pending') throw new StateError('The payment code can no longer be paid: ask for a new one.')
  return (await applyCodeOutcome(trx, code.gateway_reference, 'succeeded', now, context)) ?? code
}
