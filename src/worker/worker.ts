import { setTimeout as sleep } from 'node:timers/promises'
import { purgeEvents } from '../modules/events/event.service.js'
import { type PartnerJobs, shiftedPartners } from '../modules/sandbox/sandbox-clock.service.js'
import { purgeDeliveries } from '../modules/webhooks/webhook-delivery.service.js'
import { purgeExpiredIdempotencyKeys } from '../plugins/idempotency.js'
import type { Metrics } from '../plugins/metrics.js'
import { shiftedClock } from '../shared/time.js'
import {
  addRuns,
  NO_GATEWAY,
  type PartnerJobsDeps,
  type PartnerJobsRun,
  runPartnerJobs,
} from './partner-jobs.js'
import { type ReconcileResult, runReconciliation } from './reconcile.job.js'

export interface WorkerDeps extends PartnerJobsDeps {
  /**
   * `AMPARO_ENV=test`: partners whose sandbox clock is ahead of real time are run one by one at
   * their own time (docs/decisions.md, Sandbox test clock), the others together at real time. Off in production, where no
   * partner clock is read.
   */
  sandboxClocks?: boolean
}

export interface WorkerRun extends PartnerJobsRun {
  /** First charges the gateway answered but the database never recorded, recorded now. */
  reconciliation: ReconcileResult | { skipped: string }
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

/** Runs jobs, counting each (metrics) and noting its failure instead of throwing it. */
export function attempter(metrics?: Metrics) {
  const failures: { job: string; error: unknown }[] = []
  const attempt = async <T extends object>(job: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await counted(metrics, job, run)
    } catch (error) {
      failures.push({ job, error })
      return undefined
    }
  }
  return { attempt, failures }
}

/**
 * The partner jobs as a sandbox clock advance runs them, one partner at one day's time: app.ts
 * hands them to the sandbox routes. `deps` are the fixed ones (gateway, zone, claim, links).
 */
export function sandboxPartnerJobs(
  deps: Omit<PartnerJobsDeps, 'db' | 'clock' | 'scope' | 'log'>,
): PartnerJobs {
  return {
    async run(db, partnerId, clock, log) {
      const { attempt, failures } = attempter(deps.metrics)
      const run = await runPartnerJobs({ ...deps, db, clock, log, scope: { partnerId } }, attempt)
      if (failures[0]) throw failures[0].error
      return run
    },
    add: addRuns,
  }
}

/**
 * Runs every job once, in order. A job that fails does not keep the later ones from running (a
 * recurrence stuck on one bad row must not stop the expiry, the coverage clock or the purge);
 * the round then throws a `JobsFailedError` with what the others did. The reconciliation of
 * unrecorded first charges runs first, so the expiry finds them paid; it and the purges keep real
 * time.
 */
export async function runJobsOnce(deps: WorkerDeps): Promise<WorkerRun> {
  const { sandboxClocks, ...partnerDeps } = deps
  const { db, clock, gateway } = partnerDeps
  const { attempt, failures } = attempter(deps.metrics)
  const reconciliation = gateway
    ? await attempt('reconciliation', () => runReconciliation({ ...partnerDeps, gateway }))
    : { skipped: NO_GATEWAY }
  let partners = await runPartnerJobs(
    sandboxClocks ? { ...partnerDeps, scope: 'unshifted_clocks' } : partnerDeps,
    attempt,
  )
  if (sandboxClocks) {
    const shifted = await attempt('sandbox_clocks', async () => ({
      list: await shiftedPartners(db, clock.now().toISOString()),
    }))
    for (const { partnerId, offsetSeconds } of shifted?.list ?? []) {
      const at = { scope: { partnerId }, clock: shiftedClock(clock, offsetSeconds) }
      partners = addRuns(partners, await runPartnerJobs({ ...partnerDeps, ...at }, attempt))
    }
  }
  const idempotency = await attempt('idempotency_purge', async () => ({
    purged: await purgeExpiredIdempotencyKeys(db, clock.now()),
  }))
  const events = await attempt('events_purge', async () => ({
    purged: await purgeEvents(db, clock.now()),
  }))
  const deliveries = await attempt('webhook_deliveries_purge', async () => ({
    purged: await purgeDeliveries(db, clock.now()),
  }))
  const { recurrence, refunds, expiry, subscription_end, coverage } = partners
  if (
    reconciliation &&
    recurrence &&
    refunds &&
    expiry &&
    subscription_end &&
    coverage &&
    idempotency &&
    events &&
    deliveries &&
    failures.length === 0
  ) {
    return {
      reconciliation,
      recurrence,
      refunds,
      expiry,
      subscription_end,
      coverage,
      idempotency,
      events,
      deliveries,
    }
  }
  throw new JobsFailedError(failures, { reconciliation, ...partners, idempotency, events, deliveries })
}

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
    run.reconciliation,
    run.recurrence,
    run.refunds,
    run.expiry,
    run.subscription_end,
    run.coverage,
    run.idempotency,
    run.events,
    run.deliveries,
  ].flatMap((r) => Object.values(r))
  return counts.some((n) => typeof n === 'number' && n > 0)
}
