import type { Trx } from '../db/database.js'
import { retryingTransaction } from '../db/transaction.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import {
  type InstallmentPayment,
  markInstallmentPaid,
  recordDecline,
} from '../modules/subscriptions/installment-payment.js'
import { formatDate } from '../shared/time.js'
import { cancelSubscription } from './cancel-subscription.js'
import { DEFAULT_BATCH_SIZE, type JobDeps } from './job.js'
import {
  claimDueInstallments,
  type DueInstallment,
  refuseInstallment,
  releaseInstallment,
  rescheduleInstallment,
  stillChargeable,
} from './recurrence.repository.js'
import { retryOn } from './retry.js'

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
  /** Charges that failed unexpectedly; those installments stay held until the claim expires. */
  errors: number
}

/** Longer than any gateway call may take: past it, another worker may take the installment. */
export const CLAIM_MS = 5 * 60_000

/**
 * Charges every installment due today (service zone) with its subscription's card token: claimed
 * in batches, charged outside any transaction (a slow gateway never holds database locks), the
 * outcome written in one short transaction.
 */
export async function runRecurrence(deps: RecurrenceDeps): Promise<RecurrenceResult> {
  const { db, clock, timeZone, log, signal, batchSize = DEFAULT_BATCH_SIZE } = deps
  const result: RecurrenceResult = { charged: 0, declined: 0, refused: 0, canceled: 0, errors: 0 }
  while (!signal?.aborted) {
    const now = clock.now()
    const batch = await claimDueInstallments(db, {
      today: formatDate(now, timeZone),
      now: now.toISOString(),
      lockedUntil: new Date(now.getTime() + CLAIM_MS).toISOString(),
      limit: batchSize,
    })
    if (batch.length === 0) break
    for (const installment of batch) {
      try {
        const counts = await chargeInstallment(deps, installment)
        for (const key of Object.keys(counts) as (keyof RecurrenceResult)[]) result[key] += counts[key] ?? 0
      } catch (error) {
        // Whether the gateway charged is unknown: the claim is kept as a back-off, and the retry
        // sends the same reference, which a real gateway takes as its idempotency key.
        result.errors += 1
        log?.error({ err: error, installment_id: installment.id }, 'recurrence charge failed')
      }
    }
  }
  return result
}

async function chargeInstallment(
  deps: RecurrenceDeps,
  installment: DueInstallment,
): Promise<Partial<RecurrenceResult>> {
  const { db, gateway, clock, timeZone, log } = deps
  if (!(await stillChargeable(db, installment.id))) {
    await retryingTransaction(db, (trx) => releaseInstallment(trx, installment.id))
    return {}
  }
  const attempt = installment.failed_attempts + 1
  const reference = `installment-${installment.id}-attempt-${attempt}`
  const charge = await gateway.chargeToken(installment.card_token, installment.amount, reference)
  const now = clock.now()
  const at = now.toISOString()
  const payment: InstallmentPayment = {
    partnerId: installment.partner_id,
    subscriptionId: installment.subscription_id,
    installmentId: installment.id,
    number: installment.number,
    amount: installment.amount,
  }
  const details = {
    installment_id: installment.id,
    subscription_id: installment.subscription_id,
    attempt,
    transaction_id: charge.transactionId,
  }
  // Retried on a deadlock or a busy SQLite file: the charge is done, its outcome must be written.
  return retryingTransaction(db, async (trx) => {
    if (charge.approved) {
      if (await markInstallmentPaid(trx, payment, 'recurrence', charge.transactionId, at)) {
        log?.info(details, 'installment charged')
        return { charged: 1 }
      }
      // Canceled between the claim and the charge: money taken for nothing, someone must refund it.
      log?.error(details, 'charged an installment that is no longer payable')
      await releaseInstallment(trx, installment.id)
      return {}
    }
    await recordDecline(trx, payment, 'recurrence', charge.declineCode, charge.transactionId, at)
    const next = retryOn(installment.due_date, attempt, formatDate(now, timeZone))
    const declined = { ...details, decline_code: charge.declineCode, next_attempt_on: next }
    if (next !== null) {
      if (!(await rescheduleInstallment(trx, installment, next))) {
        await changedMeanwhile(trx, deps, installment)
        return { declined: 1 }
      }
      log?.info(declined, 'installment declined, retry scheduled')
      return { declined: 1 }
    }
    if (!(await refuseInstallment(trx, installment))) {
      await changedMeanwhile(trx, deps, installment)
      return { declined: 1 }
    }
    const canceled = await cancelSubscription(trx, {
      subscriptionId: installment.subscription_id,
      from: 'pago',
      reason: 'recurrence declined',
      now: at,
      keepInstallmentId: installment.id,
    })
    log?.warn(declined, canceled ? 'installment refused, subscription canceled' : 'installment refused')
    return { declined: 1, refused: 1, canceled: canceled ? 1 : 0 }
  })
}

/** The row changed while it was being charged (subscription canceled meanwhile): only let go of it. */
async function changedMeanwhile(trx: Trx, { log }: RecurrenceDeps, installment: DueInstallment) {
  log?.warn({ installment_id: installment.id }, 'installment changed during its charge')
  await releaseInstallment(trx, installment.id)
}
