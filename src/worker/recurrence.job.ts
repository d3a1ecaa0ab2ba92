import { DEFAULT_CLAIM_SECONDS } from '../config.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import {
  chargeDueInstallment,
  findDueInstallments,
} from '../modules/subscriptions/subscription-recurrence.service.js'
import { DEFAULT_BATCH_SIZE, type JobDeps, jobEvents, silentLog } from './job.js'

export interface RecurrenceDeps extends JobDeps {
  gateway: PaymentGateway
}

export interface RecurrenceResult {
  /** Installments paid by an approved charge. */
  charged: number
  /** Declined charges, the last ones included. */
  declined: number
  /** Installments refused after their last retry. */
  refused: number
  /** Subscriptions canceled because of a refused installment. */
  canceled: number
  /** Charges that failed unexpectedly; those installments stay held until the claim runs out. */
  errors: number
}

/**
 * Charges every installment due today (service zone) with its subscription's card token, each
 * through the one card-charge flow: claimed, charged outside any transaction (a slow gateway never
 * holds database locks), the outcome written in one short transaction.
 */
export async function runRecurrence(deps: RecurrenceDeps): Promise<RecurrenceResult> {
  const { db, clock, timeZone, gateway, signal, batchSize = DEFAULT_BATCH_SIZE } = deps
  const log = deps.log ?? silentLog
  const claimSeconds = deps.claimSeconds ?? DEFAULT_CLAIM_SECONDS
  const context = { gateway, clock, log, claimSeconds, ...jobEvents(deps) }
  const result: RecurrenceResult = { charged: 0, declined: 0, refused: 0, canceled: 0, errors: 0 }
  // An installment another worker took between the read and the claim is not read again.
  const seen = new Set<number>()
  while (!signal?.aborted) {
    const now = clock.now()
    const due = await findDueInstallments(db, { now, timeZone, limit: batchSize })
    const batch = due.filter((installment) => !seen.has(installment.id))
    if (batch.length === 0) break
    for (const installment of batch) {
      seen.add(installment.id)
      try {
        const counts = await chargeDueInstallment(db, gateway, installment, context)
        for (const key of Object.keys(counts) as (keyof typeof counts)[]) result[key] += counts[key] ?? 0
        if (counts.charged || counts.declined) {
          log.info({ installment_id: installment.id, ...counts }, 'installment charged')
        }
      } catch (error) {
        // Whether the gateway charged is unknown: the claim is kept as a back-off, and the retry
        // sends the same reference, which a real gateway takes as its idempotency key.
        result.errors += 1
        log.error({ err: error, installment_id: installment.id }, 'recurrence charge failed')
      }
    }
  }
  return result
}
