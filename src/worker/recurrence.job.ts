import { DEFAULT_CLAIM_SECONDS, DEFAULT_CONCURRENCY } from '../config.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import {
  chargeDueInstallment,
  type DueInstallment,
  findDueInstallments,
} from '../modules/subscriptions/subscription-recurrence.service.js'
import { DEFAULT_BATCH_SIZE, drainConcurrently, type JobDeps, jobEvents, silentLog } from './job.js'

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
 * holds database locks), the outcome written in one short transaction. Up to `concurrency` charges
 * are in flight at once: a gateway answering in 300 ms then still allows many charges a second.
 */
export async function runRecurrence(deps: RecurrenceDeps): Promise<RecurrenceResult> {
  const { db, clock, timeZone, gateway, signal, scope, batchSize = DEFAULT_BATCH_SIZE } = deps
  const log = deps.log ?? silentLog
  const claimSeconds = deps.claimSeconds ?? DEFAULT_CLAIM_SECONDS
  const context = { gateway, clock, log, claimSeconds, ...jobEvents(deps) }
  const result: RecurrenceResult = { charged: 0, declined: 0, refused: 0, canceled: 0, errors: 0 }
  // An installment read once is not handed out again in this run: one in flight, or that another
  // worker took between the read and the claim, may still look due to the next read.
  const seen = new Set<number>()
  const next = async () => {
    const due = await findDueInstallments(db, { now: clock.now(), timeZone, limit: batchSize, scope })
    const batch = due.filter((installment) => !seen.has(installment.id))
    for (const installment of batch) seen.add(installment.id)
    return batch
  }
  // One subscription's installments are charged one after the other, oldest first, as a person
  // would: a refusal cancels the subscription, which must not find its next installment held.
  const bySubscription = new Map<number, Promise<void>>()
  const inTurn = (installment: DueInstallment) => {
    const previous = bySubscription.get(installment.subscription_id) ?? Promise.resolve()
    const current = previous.then(() => charge(installment))
    bySubscription.set(installment.subscription_id, current)
    return current.finally(() => {
      if (bySubscription.get(installment.subscription_id) === current) {
        bySubscription.delete(installment.subscription_id)
      }
    })
  }
  const charge = async (installment: DueInstallment) => {
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
  await drainConcurrently(next, deps.concurrency ?? DEFAULT_CONCURRENCY, inTurn, signal)
  return result
}
