import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import { renderingContext } from '../modules/events/event.service.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import type { Metrics } from '../plugins/metrics.js'
import { systemClock } from '../shared/time.js'
import type { JobLog } from './job.js'
import { runMessageLoop } from './messages.job.js'
import { runReconcileLoop } from './reconcile.job.js'
import { runWebhookLoop } from './webhooks.job.js'
import { runWorker, type WorkerDeps } from './worker.js'

/** What the background work of one process needs, from the configuration. */
export function workerDeps(
  db: Db,
  config: Readonly<Config>,
  { gateway, log, metrics }: { gateway: PaymentGateway | null; log: JobLog; metrics?: Metrics },
): WorkerDeps {
  return {
    db,
    gateway,
    clock: systemClock,
    timeZone: config.timeZone,
    claimSeconds: config.paymentClaimSeconds,
    concurrency: config.recurrenceConcurrency,
    base: renderingContext(config).base,
    // Partners whose sandbox clock is ahead are run at their own time (docs/decisions.md, Sandbox test clock).
    sandboxClocks: config.env === 'test',
    log,
    metrics,
  }
}

/**
 * Runs every background job: the jobs every `intervalMs`, and webhook delivery in its own loop,
 * which polls every half second so that the first attempt starts within 2 s of the commit, and the
 * reconciliation of unrecorded card charges in a loop of its own (every 5 s).
 * `stop` lets the work in progress finish (a job's batch, the attempts in flight) and resolves then.
 */
export function startBackground(
  deps: WorkerDeps,
  { intervalMs, env, mail }: { intervalMs: number; env: Config['env']; mail: Config['mail'] },
): { done: Promise<void>; stop: () => Promise<void> } {
  const controller = new AbortController()
  const { signal } = controller
  const done = Promise.all([
    runWorker(deps, { intervalMs, signal }),
    runWebhookLoop({ ...deps, env }, { signal }),
    // Every few seconds: a card charge the database failed to record is recorded soon after it is back.
    runReconcileLoop(deps, { signal }),
    // Messages to the insured: sent (or kept, without a mail server) soon after their commit.
    runMessageLoop({ ...deps, mail, env }, { signal }),
  ]).then(() => {})
  return {
    done,
    stop: async () => {
      controller.abort()
      await done
    },
  }
}
