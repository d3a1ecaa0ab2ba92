import { setTimeout as sleep } from 'node:timers/promises'
import { annualPlanCharges } from '../modules/annual-plans/annual-plan-payment.service.js'
import { reconcileFirstCharge } from '../modules/contracts/first-card-payment.service.js'
import {
  abandonAttempt,
  findUnrecordedCharges,
  forgetRecordedAttempts,
  UnpayableChargeError,
} from '../modules/payments/first-charge.service.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import { firstInstallmentCharges } from '../modules/subscriptions/subscription-payment.service.js'
import { DEFAULT_BATCH_SIZE, type JobDeps, jobEvents, silentLog } from './job.js'

/** A stored first charge older than this is over at the gateway: every call settles within 30 s. */
export const CALL_SETTLED_MS = 35_000

export interface ReconcileResult {
  /** Unrecorded first charges whose outcome is now recorded. */
  recorded: number
  errors: number
}

/**
 * Records the first charges (installment 1, annual plans) the gateway answered but the database
 * never recorded (it failed, or the process died, after the call): each stored attempt is sent again
 * with its idempotency key, so the gateway answers the same PaymentIntent, and recorded once with its
 * event. A gateway still unavailable, or a database still down, leaves it for the next run. A
 * payment call with the attempt's key reconciles it at once, by the same functions. Attempts
 * recorded more than 24 h ago are forgotten.
 */
export async function runReconciliation(
  deps: JobDeps & { gateway: PaymentGateway },
): Promise<ReconcileResult> {
  const { db, clock, gateway, log = silentLog, batchSize = DEFAULT_BATCH_SIZE } = deps
  const context = { clock, ...jobEvents(deps) }
  const before = new Date(clock.now().getTime() - CALL_SETTLED_MS).toISOString()
  const result: ReconcileResult = { recorded: 0, errors: 0 }
  for (const attempt of await findUnrecordedCharges(db, before, batchSize)) {
    const details = { card_attempt_id: attempt.id, reference: attempt.reference }
    try {
      const outcome =
        attempt.purpose === 'first_installment'
          ? await reconcileFirstCharge(db, gateway, attempt, firstInstallmentCharges(db, context), clock)
          : await reconcileFirstCharge(db, gateway, attempt, annualPlanCharges(db, context), clock)
      log.info({ ...details, approved: outcome.approved }, 'unrecorded card charge recorded')
      result.recorded += 1
    } catch (error) {
      result.errors += 1
      if (error instanceof UnpayableChargeError) {
        log.error({ ...details, transaction_id: error.transactionId }, error.message)
        await abandonAttempt(db, attempt.id)
      } else {
        log.warn({ err: error, ...details }, 'unrecorded card charge not reconciled yet')
      }
    }
  }
  await forgetRecordedAttempts(db, clock.now())
  return result
}

/** How often the background loop looks for unrecorded charges: an empty table costs one read. */
export const RECONCILE_INTERVAL_MS = 5_000

/**
 * Runs the reconciliation every `intervalMs` until `signal` aborts, so a charge left unrecorded by a
 * database outage is recorded within a minute of the database coming back. A failed run (the
 * database still down) is logged and tried again.
 */
export async function runReconcileLoop(
  deps: JobDeps & { gateway: PaymentGateway | null },
  { signal, intervalMs = RECONCILE_INTERVAL_MS }: { signal: AbortSignal; intervalMs?: number },
): Promise<void> {
  const { gateway, log = silentLog } = deps
  if (!gateway) return
  while (!signal.aborted) {
    try {
      const run = await runReconciliation({ ...deps, gateway })
      if (run.recorded || run.errors) log.info(run, 'card charges reconciled')
    } catch (error) {
      log.warn({ err: error }, 'card charge reconciliation failed')
    }
    await sleep(intervalMs, undefined, { signal }).catch(() => {})
  }
}
