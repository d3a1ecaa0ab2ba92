import type { Trx } from '../db/database.js'
import type { SubscriptionStatus } from '../modules/subscriptions/subscription.table.js'

export interface Cancellation {
  subscriptionId: number
  /** Only a subscription still in this status is canceled. */
  from: SubscriptionStatus
  reason: string
  /** UTC ISO instant. */
  now: string
  /** An unpaid installment that keeps its status (the refused one that caused the cancellation). */
  keepInstallmentId?: number
}

/** The subscription changed between the check and the update: the caller's transaction must roll back. */
export class SubscriptionChanged extends Error {}

/**
 * Cancels a subscription and every installment of it not paid yet, in the caller's transaction.
 * False, with nothing written, when the subscription is no longer `from`. Installments before the
 * subscription, the order every payment path locks them in, so concurrent writers wait instead of
 * deadlocking; should the subscription change in between, throws `SubscriptionChanged`.
 */
export async function cancelSubscription(trx: Trx, cancellation: Cancellation): Promise<boolean> {
  const { subscriptionId, from, reason, now, keepInstallmentId } = cancellation
  const current = await trx
    .selectFrom('subscriptions')
    .select('status')
    .where('id', '=', subscriptionId)
    .executeTakeFirst()
  if (current?.status !== from) return false
  let unpaid = trx
    .updateTable('installments')
    .set({ status: 'canceled', next_attempt_on: null, locked_until: null })
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', ['pending', 'refused'])
  if (keepInstallmentId !== undefined) unpaid = unpaid.where('id', '<>', keepInstallmentId)
  await unpaid.execute()
  const result = await trx
    .updateTable('subscriptions')
    .set({ status: 'canceled', canceled_at: now, cancel_reason: reason })
    .where('id', '=', subscriptionId)
    .where('status', '=', from)
    .executeTakeFirst()
  if (Number(result.numUpdatedRows) === 0) throw new SubscriptionChanged()
  return true
}
