import { DEFAULT_CLAIM_SECONDS, DEFAULT_CONCURRENCY } from '../config.js'
import { findDueRefunds, payDueRefund } from '../modules/annual-plans/annual-plan-refund.service.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import { DEFAULT_BATCH_SIZE, drainConcurrently, type JobDeps, jobEvents, silentLog } from './job.js'

export interface RefundsResult {
  /** Refunds the gateway took. */
  refunded: number
  /** Attempts that failed and will be tried again. */
  retried: number
  /** Refunds given up after 3 days of errors. */
  failed: number
  /** Attempts that failed unexpectedly (the refund stays held until its claim runs out). */
  errors: number
}

/** Pays every pending refund whose attempt time has come, through the annual plans' refund service. */
export async function runRefunds(deps: JobDeps & { gateway: PaymentGateway }): Promise<RefundsResult> {
  const { db, clock, gateway, signal, scope, batchSize = DEFAULT_BATCH_SIZE } = deps
  const log = deps.log ?? silentLog
  const claimSeconds = deps.claimSeconds ?? DEFAULT_CLAIM_SECONDS
  const context = { clock, log, claimSeconds, rendering: jobEvents(deps) }
  const result: RefundsResult = { refunded: 0, retried: 0, failed: 0, errors: 0 }
  // Walks ids upwards, so a refund retried later in this run's clock is not tried twice in it.
  let after = 0
  const next = async () => {
    const ids = await findDueRefunds(db, { now: clock.now().toISOString(), after, limit: batchSize, scope })
    after = ids.at(-1) ?? after
    return ids
  }
  const pay = async (id: number) => {
    try {
      const attempt = await payDueRefund(db, gateway, id, context)
      if (attempt === 'refunded') result.refunded += 1
      else if (attempt === 'retry') result.retried += 1
      else if (attempt === 'failed') result.failed += 1
      if (attempt) log.info({ refund_id: id, attempt }, 'refund attempted')
    } catch (error) {
      result.errors += 1
      log.error({ err: error, refund_id: id }, 'refund attempt failed')
    }
  }
  await drainConcurrently(next, deps.concurrency ?? DEFAULT_CONCURRENCY, pay, signal)
  return result
}
