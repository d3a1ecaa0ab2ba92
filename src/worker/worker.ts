import { setTimeout as sleep } from 'node:timers/promises'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import { purgeExpiredIdempotencyKeys } from '../plugins/idempotency.js'
import type { Metrics } from '../plugins/metrics.js'
import { advanceCoverageClock, type CoverageClockResult } from './coverage-clock.job.js'
import type { JobDeps } from './job.js'
import { type ExpiryResult, expirePendingSubscriptions } from './pending-expiry.job.js'
import { type RecurrenceResult, runRecurrence } from './recurrence.job.js'

export interface WorkerDeps extends JobDeps {
  /** The own card gateway; null (AMPARO_PAYMENT_GATEWAY=none) skips the recurrence. */
  gateway: PaymentGateway | null
  /** Job counters for Prometheus (METRICS_PORT). */
  metrics?: Metrics
}

export interface WorkerRun {
  recurrence: RecurrenceResult | { skipped: string }
  expiry: ExpiryResult
  coverage: CoverageClockResult
  idempotency: { purged: number }
}

/** Runs every job once, in order; a failure propagates (the caller decides whether to go on). */
export async function runJobsOnce(deps: WorkerDeps): Promise<WorkerRun> {
  const { gateway, metrics, ...jobDeps } = deps
  const recurrence = gateway
    ? await counted(metrics, 'recurrence', () => runRecurrence({ ...jobDeps, gateway }))
    : { skipped: 'no payment gateway (AMPARO_PAYMENT_GATEWAY=none)' }
  const expiry = await counted(metrics, 'pending_expiry', () => expirePendingSubscriptions(jobDeps))
  const coverage = await counted(metrics, 'coverage_clock', () => advanceCoverageClock(jobDeps))
  const idempotency = await counted(metrics, 'idempotency_purge', async () => ({
    purged: await purgeExpiredIdempotencyKeys(jobDeps.db, jobDeps.clock.now()),
  }))
  return { recurrence, expiry, coverage, idempotency }
}

/** Runs a job, counting the run, what it did by outcome, and a failure. */
async function counted<T extends object>(
  metrics: Metrics | undefined,
  job: string,
  run: () => Promise<T>,
): Promise<T> {
  metrics?.jobRuns.inc({ job })
  try {
    const result = await run()
    for (const [outcome, n] of Object.entries(result)) {
      if (typeof n === 'number' && n > 0) metrics?.jobItems.inc({ job, outcome }, n)
    }
    return result
  } catch (error) {
    metrics?.jobFailures.inc({ job })
    throw error
  }
}

export interface LoopOptions {
  intervalMs: number
  /** Stops the loop: the current batch is finished, no new one is started. */
  signal: AbortSignal
  /** What one round does; tests replace it. */
  runOnce?: (deps: WorkerDeps) => Promise<WorkerRun>
}

/**
 * Runs the jobs every `intervalMs` until `signal` aborts. A failed round (database unreachable,
 * a bug) is logged and the next round tries again: one bad row must not stop billing for all.
 * The caller owns the database and closes it after this returns.
 */
export async function runWorker(deps: WorkerDeps, options: LoopOptions): Promise<void> {
  const { intervalMs, signal, runOnce = runJobsOnce } = options
  const { log } = deps
  while (!signal.aborted) {
    try {
      const run = await runOnce({ ...deps, signal })
      if (didSomething(run)) log?.info(run, 'worker round')
      else log?.debug(run, 'worker round')
    } catch (error) {
      log?.error({ err: error }, 'worker round failed')
    }
    await sleep(intervalMs, undefined, { signal }).catch(() => {})
  }
}

function didSomething(run: WorkerRun): boolean {
  const counts = [run.recurrence, run.expiry, run.coverage, run.idempotency].flatMap((r) => Object.values(r))
  return counts.some((n) => typeof n === 'number' && n > 0)
}
