import { expireEndedSubscriptions } from '../modules/subscriptions/subscription-end.service.js'
import { DEFAULT_BATCH_SIZE, type JobDeps, jobEvents } from './job.js'

export interface SubscriptionEndResult {
  /** Active subscriptions recorded as expired once their last installment's month had passed. */
  expired: number
}

/** Records the expiry of every active subscription past its last month, with `subscription.expired`. */
export async function endSubscriptions(deps: JobDeps): Promise<SubscriptionEndResult> {
  const { db, clock, signal, scope, batchSize = DEFAULT_BATCH_SIZE } = deps
  return expireEndedSubscriptions(db, clock.now().toISOString(), jobEvents(deps), {
    batchSize,
    scope,
    signal,
  })
}
