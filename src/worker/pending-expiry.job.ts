import type { Db, Trx } from '../db/database.js'
import { retryingTransaction } from '../db/transaction.js'
import { expiryCutoff } from '../modules/subscriptions/schedule.js'
import { formatDate } from '../shared/time.js'
import { cancelSubscription, SubscriptionChanged } from './cancel-subscription.js'
import { DEFAULT_BATCH_SIZE, type JobDeps } from './job.js'

export interface ExpiryResult {
  /** Pending subscriptions canceled because installment 1 stayed unpaid. */
  canceled: number
}

/** Cancels `pending` subscriptions whose installment 1 is still unpaid 30 days after contracting. */
export async function expirePendingSubscriptions(deps: JobDeps): Promise<ExpiryResult> {
  const { db, clock, timeZone, log, signal, batchSize = DEFAULT_BATCH_SIZE } = deps
  const result: ExpiryResult = { canceled: 0 }
  // Walks ids upwards, so a subscription skipped below is not looked at again in this run.
  let after = 0
  while (!signal?.aborted) {
    const now = clock.now()
    const batch = await db
      .selectFrom('subscriptions as s')
      .innerJoin('installments as i', (join) =>
        join.onRef('i.subscription_id', '=', 's.id').on('i.number', '=', 1),
      )
      .select('s.id')
      .where('s.id', '>', after)
      .where('s.status', '=', 'pending')
      .where('i.status', 'in', ['pending', 'refused'])
      // pastPendingExpiry's rule, in SQL; paying installment 1 is refused by the same.
      .where('s.created_at', '<', expiryCutoff(formatDate(now, timeZone), timeZone))
      .orderBy('s.id')
      .limit(batchSize)
      .execute()
    if (batch.length === 0) break
    for (const { id } of batch) {
      if (await expireOne(db, id, now.toISOString())) {
        result.canceled += 1
        log?.info({ subscription_id: id }, 'unpaid pending subscription canceled')
      }
      after = id
    }
  }
  return result
}

async function expireOne(db: Db, subscriptionId: number, now: string): Promise<boolean> {
  try {
    return await retryingTransaction(db, (trx) => expire(trx, subscriptionId, now))
  } catch (error) {
    if (error instanceof SubscriptionChanged) return false
    throw error
  }
}

/**
 * Installment 1 first, and only when no card payment holds it: a charge in progress must be
 * able to record its outcome. A payment that comes later finds it canceled.
 */
async function expire(trx: Trx, subscriptionId: number, now: string): Promise<boolean> {
  const first = await trx
    .updateTable('installments')
    .set({ status: 'canceled', next_attempt_on: null, locked_until: null })
    .where('subscription_id', '=', subscriptionId)
    .where('number', '=', 1)
    .where('status', 'in', ['pending', 'refused'])
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .executeTakeFirst()
  if (Number(first.numUpdatedRows) === 0) return false
  const canceled = await cancelSubscription(trx, { subscriptionId, from: 'pending', reason: 'unpaid', now })
  // Activated or canceled another way meanwhile: undo the installment's change with the transaction.
  if (!canceled) throw new SubscriptionChanged()
  return true
}
