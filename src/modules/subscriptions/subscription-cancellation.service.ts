import type { Db, Trx } from '../../db/database.js'
import type { PartnerScope } from '../../db/partner-scope.js'
import type { CancellationReason } from '../../db/tables/subscription.js'
import { retryingTransaction } from '../../db/transaction.js'
import { StateError } from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import type { RenderingContext } from '../events/event.service.js'
import { cancellationOf, expiryCutoff, statusAt, UNPAID_CANCELLATION } from './subscription.rules.js'
import { requireSubscriptionState } from './subscription.service.js'
import { findExpiredPending as findExpired } from './subscription-lifecycle.repository.js'
import {
  cancelFirstInstallment,
  cancelSubscription,
  SubscriptionChanged,
} from './subscription-lifecycle.service.js'

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
