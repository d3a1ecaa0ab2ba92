import { randomBytes } from 'node:crypto'
import type { Trx } from '../../db/database.js'
import type { PaymentChannel } from '../../db/tables/payment.js'
import type { PaidWith } from '../../db/tables/payment-code.js'
import type { CancellationReason, SubscriptionStatus } from '../../db/tables/subscription.js'
import { verificationCode } from '../certificates/certificate.rules.js'
import { paidWithOf } from '../contracts/contract.rules.js'
import { nextPolicyNumber } from '../contracts/contract.service.js'
import { type RenderingContext, recordEvent } from '../events/event.service.js'
import { PaymentInProgressError, UNRECORDED_RETRY_AFTER_SECONDS } from '../payments/payment.errors.js'
import { installmentResource, subscriptionResource } from './subscription.mapper.js'
import { findInstallmentOwner, findSubscriptionViewById } from './subscription.repository.js'
import {
  activationBy,
  INSTALLMENT_FROM,
  SUBSCRIPTION_FROM,
  subscriptionMayMove,
} from './subscription.rules.js'
import {
  countUncancelable,
  findSubscriptionStatus,
  transitionInstallments,
  transitionSubscription,
} from './subscription-lifecycle.repository.js'
import {
  type InstallmentPayment,
  issuePolicy,
  recordInstallmentPayment,
} from './subscription-payment.repository.js'
import { countDeclinedAttempt } from './subscription-recurrence.repository.js'

// Every status change of a subscription and its installments (README, Subscriptions), each with
// its event (README, Events) in the transaction of the change, the resource as GET
// /subscriptions/{id} or /installments shows it once the change is made. The from-sets are
// subscription.rules.ts SUBSCRIPTION_FROM and INSTALLMENT_FROM.

/** Writes a `subscription.*` event of the subscription as it now is. */
export async function recordSubscriptionEvent(
  trx: Trx,
  type: 'subscription.activated' | 'subscription.canceled' | 'subscription.expired',
  subscriptionId: number,
  now: string,
  { base, timeZone }: RenderingContext,
): Promise<void> {
  const view = await findSubscriptionViewById(trx, subscriptionId)
  if (!view) throw new Error(`subscription ${subscriptionId} not found for its event`)
  await recordEvent(trx, {
    partnerId: view.partner_id,
    type,
    object: subscriptionResource(view, base, timeZone),
    now,
  })
}

/** Writes an `installment.*` event of the installment as it now is. */
export async function recordInstallmentEvent(
  trx: Trx,
  type: 'installment.paid' | 'installment.payment_failed',
  installmentId: number,
  now: string,
  { timeZone }: Pick<RenderingContext, 'timeZone'>,
): Promise<void> {
  const row = await findInstallmentOwner(trx, installmentId)
  if (!row) throw new Error(`installment ${installmentId} not found for its event`)
  const { partner_id: partnerId, ...installment } = row
  await recordEvent(trx, { partnerId, type, object: installmentResource(installment, timeZone), now })
}

// — Payment —

/**
 * Pays an unpaid installment once, with its ledger row and `installment.paid`; when it activates a
 * pending subscription (activationBy), its policy number and certificate code, and
 * `subscription.activated`. Of concurrent callers (threads, processes, workers) exactly one moves
 * it; the others get false, with nothing written.
 */
export async function payInstallment(
  trx: Trx,
  payment: InstallmentPayment,
  channel: Exclude<PaymentChannel, 'refund'>,
  transactionId: string | null,
  now: string,
  rendering: RenderingContext,
  paidWith: PaidWith = paidWithOf(channel),
): Promise<boolean> {
  const { installmentId, subscriptionId } = payment
  const paid = { paid_at: now, paid_with: paidWith, locked_until: null, next_attempt_on: null }
  if ((await transitionInstallments(trx, { id: installmentId }, INSTALLMENT_FROM.paid, 'paid', paid)) === 0)
    return false
  await recordInstallmentPayment(trx, payment, channel, transactionId, now)
  await recordInstallmentEvent(trx, 'installment.paid', installmentId, now, rendering)
  const activation = activationBy(payment.number)
  const activated =
    activation !== null &&
    (await transitionSubscription(trx, subscriptionId, [activation.from], activation.to, { updated_at: now }))
  if (!activated) return true
  await issuePolicy(trx, subscriptionId, {
    policyNumber: await nextPolicyNumber(trx, now, rendering.timeZone),
    certificateCode: verificationCode(randomBytes),
  })
  await recordSubscriptionEvent(trx, 'subscription.activated', subscriptionId, now, rendering)
  return true
}

/**
 * Installment 1 declined at the counter: `refused` (from pending or refused), one more declined
 * charge counted, with `installment.payment_failed`; a later approved try still pays it.
 */
export async function refuseAtCounter(
  trx: Trx,
  installmentId: number,
  now: string,
  rendering: Pick<RenderingContext, 'timeZone'>,
): Promise<void> {
  await transitionInstallments(trx, { id: installmentId }, INSTALLMENT_FROM.refused, 'refused', (eb) => ({
    failed_attempts: eb('failed_attempts', '+', 1),
  }))
  await recordInstallmentEvent(trx, 'installment.payment_failed', installmentId, now, rendering)
}

/**
 * A declined recurrence charge of a pending installment: the decline counted and the next attempt
 * set, or, with none left (`nextAttemptOn` null), the installment `refused`; with
 * `installment.payment_failed`. Guarded by the declines seen at claim time, so one is never counted
 * twice: false, with nothing written, when the installment changed meanwhile.
 */
export async function recordRecurrenceDecline(
  trx: Trx,
  installment: { id: number; failed_attempts: number },
  nextAttemptOn: string | null,
  now: string,
  rendering: Pick<RenderingContext, 'timeZone'>,
): Promise<boolean> {
  const counted =
    nextAttemptOn === null
      ? (await transitionInstallments(
          trx,
          { id: installment.id, failedAttempts: installment.failed_attempts },
          ['pending'],
          'refused',
          { failed_attempts: installment.failed_attempts + 1, next_attempt_on: null, locked_until: null },
        )) === 1
      : await countDeclinedAttempt(trx, installment, nextAttemptOn)
  if (counted) await recordInstallmentEvent(trx, 'installment.payment_failed', installment.id, now, rendering)
  return counted
}

// — Cancellation —

export interface Cancellation {
  subscriptionId: number
  /** Only a subscription still in this status is canceled. */
  from: SubscriptionStatus
  reason: CancellationReason
  /** The partner's own words, kept beside the reason. */
  comment: string | null
  /** UTC ISO instant. */
  now: string
  /** An unpaid installment that keeps its status (the refused one that caused the cancellation). */
  keepInstallmentId?: number
}

/** The subscription changed between the check and the update: the caller's transaction must roll back. */
export class SubscriptionChanged extends Error {}

/**
 * The one way a subscription is canceled, by the partner, the expiry or the recurrence: it and its
 * unpaid installments (paid ones stay paid), with `subscription.canceled`, in the caller's
 * transaction. False, with nothing written, when it is no longer `from`. A card charge holding one
 * of its installments, or a first charge not recorded yet, must finish first:
 * PaymentInProgressError. Installments before the subscription, the order every payment path locks
 * them in, so concurrent writers wait instead of deadlocking; should the subscription change in
 * between, throws `SubscriptionChanged`.
 */
export async function cancelSubscription(
  trx: Trx,
  cancellation: Cancellation,
  rendering: RenderingContext,
): Promise<boolean> {
  const { subscriptionId, from, reason, comment, now, keepInstallmentId } = cancellation
  if (!subscriptionMayMove(from, 'canceled')) return false
  if ((await findSubscriptionStatus(trx, subscriptionId)) !== from) return false
  await transitionInstallments(
    trx,
    { subscriptionId, exceptId: keepInstallmentId, unheldAt: now },
    INSTALLMENT_FROM.canceled,
    'canceled',
    { next_attempt_on: null, locked_until: null },
  )
  const left = await countUncancelable(trx, subscriptionId, keepInstallmentId)
  if (left.unrecorded > 0) {
    // Canceling now would leave a charge the gateway may have approved with nothing to pay
    // (docs/decisions.md, "A cancellation waits for an unrecorded first charge").
    throw new PaymentInProgressError(
      'A card charge of this subscription went to the gateway and is being recorded: try again after Retry-After seconds.',
      UNRECORDED_RETRY_AFTER_SECONDS,
    )
  }
  if (left.held > 0) throw new PaymentInProgressError()
  if (
    !(await transitionSubscription(trx, subscriptionId, [from], 'canceled', {
      canceled_at: now,
      cancel_reason: reason,
      cancel_comment: comment,
      updated_at: now,
    }))
  )
    throw new SubscriptionChanged()
  await recordSubscriptionEvent(trx, 'subscription.canceled', subscriptionId, now, rendering)
  return true
}

/**
 * Installment 1 of a pending subscription past its unpaid days, canceled unless a charge holds it
 * or a first charge of it is still unrecorded; false when none was.
 */
export async function cancelFirstInstallment(
  trx: Trx,
  subscriptionId: number,
  now: string,
): Promise<boolean> {
  const canceled = await transitionInstallments(
    trx,
    { subscriptionId, number: 1, unheldAt: now },
    INSTALLMENT_FROM.canceled,
    'canceled',
    { next_attempt_on: null, locked_until: null },
  )
  return canceled === 1
}

// — The end (docs/decisions.md, "A subscription ends") —

/**
 * Records the expiry of an active subscription at `endedAt` (its `updated_at`), with
 * `subscription.expired`; guarded by the status, so false when another reader or the worker
 * recorded it first, or it was canceled.
 */
export async function expireSubscription(
  trx: Trx,
  subscriptionId: number,
  endedAt: string,
  now: string,
  rendering: RenderingContext,
): Promise<boolean> {
  const expired = await transitionSubscription(trx, subscriptionId, SUBSCRIPTION_FROM.expired, 'expired', {
    updated_at: endedAt,
  })
  if (expired) await recordSubscriptionEvent(trx, 'subscription.expired', subscriptionId, now, rendering)
  return expired
}
