import type { Db, Trx } from '../../db/database.js'
import type { PartnerScope } from '../../db/partner-scope.js'
import { retryingTransaction } from '../../db/transaction.js'
import { formatDate } from '../../shared/time.js'
import type { RenderingContext } from '../events/event.service.js'
import { coverageEndsAt, endedBy, expiredAt } from './subscription.rules.js'
import { type EndingSubscription, findEndedSubscriptions } from './subscription-lifecycle.repository.js'
import { expireSubscription } from './subscription-lifecycle.service.js'

// A subscription ends (README, Subscriptions): once its last installment's month has passed it is
// `expired`, with `subscription.expired`, written by the worker or the first read, once.

/**
 * Records the expiry `expiredAt` gives an active subscription at `now`, with its event; the
 * transition is guarded, so of the worker and readers racing, one writes the event. True when this
 * call did.
 */
async function recordExpiry(
  trx: Trx,
  subscription: EndingSubscription,
  now: string,
  rendering: RenderingContext,
): Promise<boolean> {
  if (!expiredAt(subscription, now, rendering.timeZone)) return false
  const endedAt = coverageEndsAt(subscription.ends_on, rendering.timeZone)
  return expireSubscription(trx, subscription.id, endedAt, now, rendering)
}

/**
 * The worker's end of subscriptions: every active one past its last month at `now` is recorded as
 * expired with its event, a batch per transaction; only `scope`'s partners' when it is given.
 */
export async function expireEndedSubscriptions(
  db: Db,
  now: string,
  rendering: RenderingContext,
  { batchSize = 100, scope, signal }: { batchSize?: number; scope?: PartnerScope; signal?: AbortSignal } = {},
): Promise<{ expired: number }> {
  const today = formatDate(now, rendering.timeZone)
  let expired = 0
  // Walks ids upwards, so a subscription skipped below is not looked at again in this run.
  for (let after = 0; !signal?.aborted; ) {
    const batch = await findEndedSubscriptions(db, { today, after, limit: batchSize, scope })
    if (batch.length === 0) break
    expired += await retryingTransaction(db, async (trx) => {
      let done = 0
      for (const subscription of batch) if (await recordExpiry(trx, subscription, now, rendering)) done += 1
      return done
    })
    after = batch[batch.length - 1]?.id ?? after
    if (batch.length < batchSize) break
  }
  return { expired }
}

/**
 * A read is about to show these subscriptions: those whose end the clock reached at `now` are
 * recorded as expired with their events first (README, Events: by the first read that shows the
 * new status). True when any was, so the caller reads them again.
 */
export async function catchUpEndOf(
  db: Db,
  subscriptions: EndingSubscription[],
  now: string,
  rendering: RenderingContext,
): Promise<boolean> {
  const today = formatDate(now, rendering.timeZone)
  const ended = subscriptions.filter((s) => endedBy(s, today))
  if (ended.length === 0) return false
  await retryingTransaction(db, async (trx) => {
    for (const subscription of ended) await recordExpiry(trx, subscription, now, rendering)
  })
  return true
}
