import {
  expireUnpaidSubscription,
  findExpiredPending,
} from '../modules/subscriptions/subscription-cancellation.service.js'
import { DEFAULT_BATCH_SIZE, type JobDeps, jobEvents } from './job.js'

export interface ExpiryResult {
  /** Pending subscriptions canceled because installment 1 stayed unpaid. */
  canceled: number
}

/** Cancels `pending` subscriptions whose installment 1 is still unpaid 30 days after contracting. */
export async function expirePendingSubscriptions(deps: JobDeps): Promise<ExpiryResult> {
  const { db, clock, timeZone, log, signal, scope, batchSize = DEFAULT_BATCH_SIZE } = deps
  const result: ExpiryResult = { canceled: 0 }
  // Walks ids upwards, so a subscription skipped below is not looked at again in this run.
  let after = 0
  while (!signal?.aborted) {
    const now = clock.now()
    const batch = await findExpiredPending(db, { now, timeZone, after, limit: batchSize, scope })
    if (batch.length === 0) break
    for (const id of batch) {
      if (await expireUnpaidSubscription(db, id, now.toISOString(), jobEvents(deps))) {
        result.canceled += 1
        log?.info({ subscription_id: id }, 'unpaid pending subscription canceled')
      }
      after = id
    }
  }
  return result
}
