import { setTimeout as sleep } from 'node:timers/promises'
import { advanceCoverageClock } from '../modules/annual-plans/annual-plan-events.service.js'
import { purgeEvents } from '../modules/events/event.service.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import { purgeDeliveries } from '../modules/webhooks/webhook-delivery.service.js'
import { purgeExpiredIdempotencyKeys } from '../plugins/idempotency.repository.js'
import type { Metrics } from '../plugins/metrics.js'
import { type JobDeps, jobEvents } from './job.js'
import { type ExpiryResult, expirePendingSubscriptions } from './pending-expiry.job.js'
import { type RecurrenceResult, runRecurrence } from './recurrence.job.js'
import { type RefundsResult, runRefunds } from './refunds.job.js'

export interface WorkerDeps extends JobDeps {
  /** The own card gateway; null (AMPARO_PAYMENT_GATEWAY=none) skips the recurrence. */
  gateway: PaymentGateway | null
  /** Job counters for Prometheus (METRICS_PORT). */
  metrics?: Metrics
}

export interface WorkerRun {
  recurrence: RecurrenceResult | { skipped: string }
  refunds: RefundsResult | { skipped: string }
  expiry: ExpiryResult
  coverage: { protected: number; expired: number }
  idempotency: { purged: number }
  events: { purged: number }
  deliveries: { purged: number }
}

/**
 * A round in which some jobs failed. Every job still ran: `run` holds what the others did, and
 * `errors` each failure, its job named in the message.
 */
export class JobsFailedError extends AggregateError {
  constructor(
    errors: { job: string; error: unknown }[],
    readonly run: Partial<WorkerRun>,
  ) {
    super(
      errors.map(({ job, error }) => new Error(`${job}: ${messageOf(error)}`, { cause: error })),
      `worker jobs failed: ${errors.map(({ job }) => job).join(', ')}`,
    )
    this.name = 'JobsFailedError'
  }
}

/**
 * Runs every job once, in order. A job that fails does not keep the later ones from running (a
 * recurrence stuck on one bad row must not stop the expiry, the coverage clock or the purge);
 * the round then throws a `JobsFailedError` with what the others did.
 */
export async function runJobsOnce(deps: WorkerDeps): Promise<WorkerRun> {
  const { gateway, metrics, ...jobDeps } = deps
  const failures: { job: string; error: unknown }[] = []
  const attempt = async <T extends object>(job: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await counted(metrics, job, run)
    } catch (error) {
      failures.push({ job, error })
      return undefined
    }
  }
  const recurrence = gateway
    ? await attempt('recurrence', () => runRecurrence({ ...jobDeps, gateway }))
    : { skipped: NO_GATEWAY }
  const refunds = gateway
    ? await attempt('refunds', () => runRefunds({ ...jobDeps, gateway }))
    : { skipped: NO_GATEWAY }
  const expiry = await attempt('pending_expiry', () => expirePendingSubscriptions(jobDeps))
  const coverage = await attempt('coverage_clock', () =>
    advanceCoverageClock(jobDeps.db, jobDeps.clock.now().toISOString(), jobEvents(jobDeps)),
  )
  const idempotency = await attempt('idempotency_purge', async () => ({
    purged: await purgeExpiredIdempotencyKeys(jobDeps.db, jobDeps.clock.now()),
  }))
  const events = await attempt('events_purge', async () => ({
    purged: await purgeEvents(jobDeps.db, jobDeps.clock.now()),
  }))
  const deliveries = await attempt('webhook_deliveries_purge', async () => ({
    purged: await purgeDeliveries(jobDeps.db, jobDeps.clock.now()),
  }))
  if (
    recurrence &&
    refunds &&
    expiry &&
    coverage &&
    idempotency &&
    events &&
    deliveries &&
    failures.length === 0
  ) {
    return { recurrence, refunds, expiry, coverage, idempotency, events, deliveries }
  }
  throw new JobsFailedError(failures, {
    recurrence,
    refunds,
    expiry,
    coverage,
    idempotency,
    events,
    deliveries,
  })
}

const NO_GATEWAY = 'no payment gateway (AMPARO_PAYMENT_GATEWAY=none)'

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

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
      const done = error instanceof JobsFailedError ? error.run : {}
      log?.error({ err: error, ...done }, 'worker round failed')
    }
    await sleep(intervalMs, undefined, { signal }).catch(() => {})
  }
}

function didSomething(run: WorkerRun): boolean {
  const counts = [
    run.recurrence,
    run.refunds,
    run.expiry,
    run.coverage,
    run.idempotency,
    run.events,
    run.deliveries,
  ].flatMap((r) => Object.values(r))
  return counts.some((n) => typeof n === 'number' && n > 0)
}
