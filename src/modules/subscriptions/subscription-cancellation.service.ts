import type { Db, Trx } from '../../db/database.js'
import type { PartnerScope } from '../../db/partner-scope.js'
import type { CancellationReason, SubscriptionStatus } from '../../db/tables/subscription.js'
import { retryingTransaction } from '../../db/transaction.js'
import { StateError } from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import type { RenderingContext } from '../events/event.service.js'
import { PaymentInProgressError, UNRECORDED_RETRY_AFTER_SECONDS } from '../payments/payment.errors.js'
import { cancellationOf, expiryCutoff, statusAt, UNPAID_CANCELLATION } from './subscription.rules.js'
import { requireSubscriptionState } from './subscription.service.js'
import {
  cancelFirstInstallment,
  cancelUnpaidInstallments,
  findExpiredPending as findExpired,
  markSubscriptionCanceled,
} from './subscription-cancellation.repository.js'
import { recordSubscriptionEvent } from './subscription-events.service.js'

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
 * unpaid installments (paid ones stay paid), in the caller's transaction. False, with nothing
 * written, when it is no longer `from`. A card charge holding one of its installments, or a first
 * charge not recorded yet, must finish first: PaymentInProgressError. Installments before the subscription, the order every payment
 * path locks them in, so concurrent writers wait instead of deadlocking; should the subscription
 * change in between, throws `SubscriptionChanged`.
 */
export async function cancelSubscription(
  trx: Trx,
  cancellation: Cancellation,
  rendering: RenderingContext,
): Promise<boolean> {
  const { subscriptionId, from, reason, comment, now, keepInstallmentId } = cancellation
  const current = await trx
    .selectFrom('subscriptions')
    .select('status')
    .where('id', '=', subscriptionId)
    .executeTakeFirst()
  if (current?.status !== from) return false
  const left = await cancelUnpaidInstallments(trx, subscriptionId, now, keepInstallmentId)
  if (left.unrecorded > 0) {
    // Canceling now would leave a charge the gateway may have approved with nothing to pay
    // (docs/decisions.md, "A cancellation waits for an unrecorded first charge").
    throw new PaymentInProgressError(
      'A card charge of this subscription went to the gateway and is being recorded: try again after Retry-After seconds.',
      UNRECORDED_RETRY_AFTER_SECONDS,
    )
  }
  if (left.held > 0) throw new PaymentInProgressError()
  if (!(await markSubscriptionCanceled(trx, subscriptionId, from, { reason, comment }, now)))
    throw new SubscriptionChanged()
  await recordSubscriptionEvent(trx, 'subscription.canceled', subscriptionId, now, rendering)
  return true
}

/**
 * The partner cancels its subscription (the `cancelSubscription` operation), whatever its status but canceled;
 * read again when a payment changed it meanwhile.
 */
export async function cancelByPartner(
  trx: Trx,
  partnerId: number,
  subscriptionId: number,
  reason: string | undefined,
  now: string,
  rendering: RenderingContext,
): Promise<void> {
  const comment = reason?.trim() || null
  await cancelForReason(
    trx,
    partnerId,
    subscriptionId,
    { reason: 'partner_request', comment },
    now,
    rendering,
  )
}

/**
 * The one way a subscription is ended for a reason (a partner's request, a claim settled by
 * replacement or indemnity, README "Claims"), in the caller's transaction: canceled as
 * `cancellationOf` allows it from its status, its unpaid installments with it; read again when a
 * payment changed it meanwhile. One canceled or expired already is a 422, or, with
 * `whenEnded: 'keep'` (a claim's settlement), left as it is: it has nothing left to end.
 */
export async function cancelForReason(
  trx: Trx,
  partnerId: number,
  subscriptionId: number,
  {
    reason,
    comment,
    whenEnded = 'refuse',
  }: { reason: CancellationReason; comment: string | null; whenEnded?: 'refuse' | 'keep' },
  now: string,
  rendering: RenderingContext,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const subscription = await requireSubscriptionState(trx, partnerId, subscriptionId)
    const state = statusAt(subscription, now, rendering.timeZone)
    if (whenEnded === 'keep' && (state === 'canceled' || state === 'expired')) return
    const { from } = cancellationOf(state, reason)
    const cancellation = { subscriptionId, from, reason, comment, now }
    try {
      if (await cancelSubscription(trx, cancellation, rendering)) return
    } catch (error) {
      if (!(error instanceof SubscriptionChanged)) throw error
    }
    if (attempt >= 3) throw new StateError('The subscription changed while being canceled: try again.')
  }
}

/**
 * Cancels a `pending` subscription whose installment 1 stayed unpaid past its days: installment 1
 * first, and only when no card payment holds it (a charge in progress must be able to record its
 * outcome; a payment that comes later finds it canceled), nor while a first charge of it is unrecorded
 * (see cancelFirstInstallment). False when it was paid, canceled, held or unrecorded meanwhile.
 */
export async function expireUnpaidSubscription(
  db: Db,
  subscriptionId: number,
  now: string,
  rendering: RenderingContext,
): Promise<boolean> {
  try {
    return await retryingTransaction(db, async (trx) => {
      if (!(await cancelFirstInstallment(trx, subscriptionId, now))) return false
      const canceled = await cancelSubscription(
        trx,
        { subscriptionId, ...UNPAID_CANCELLATION, comment: null, now },
        rendering,
      )
      // Activated or canceled another way meanwhile: undo the installment's change with the transaction.
      if (!canceled) throw new SubscriptionChanged()
      return true
    })
  } catch (error) {
    if (error instanceof SubscriptionChanged) return false
    throw error
  }
}

/**
 * Pending subscriptions past their unpaid days at `now` (pastPendingExpiry's rule, in SQL; paying
 * installment 1 is refused by the same), by id after `after`.
 */
export async function findExpiredPending(
  db: Db,
  query: { now: Date; timeZone: string; after: number; limit: number; scope?: PartnerScope },
): Promise<number[]> {
  const { now, timeZone, ...rest } = query
  return findExpired(db, { cutoff: expiryCutoff(formatDate(now, timeZone), timeZone), ...rest })
}
