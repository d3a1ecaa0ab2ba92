import type { Command } from 'commander'
import { pino } from 'pino'
import { gatewayOf } from '../modules/payments/gateway-factory.js'
import { startBackground, workerDeps } from '../worker/background.js'
import { deliverMessagesOnce } from '../worker/messages.job.js'
import { deliverWebhooksOnce, type WebhookResult } from '../worker/webhooks.job.js'
import { JobsFailedError, runJobsOnce, type WorkerRun } from '../worker/worker.js'
import { type Io, positiveInt, report, UsageError, withDatabase } from './context.js'

const MAX_INTERVAL_SECONDS = 86_400

interface Options {
  once?: boolean
  interval: string
  json?: boolean
}

export function registerWorker(program: Command, io: Io) {
  program
    .command('worker')
    .description(
      "Run the background jobs: webhook delivery (polled every half second), the recording of first card charges the database failed to record, recurrence billing of own-gateway subscriptions (due date, then retries 1, 3 and 5 days later), the refunds of canceled annual plans paid by card, cancellation of pending subscriptions unpaid after 30 days, the annual plans' coverage clock, and the purges (expired idempotency keys, events and webhook deliveries after 30 days). Loops until SIGTERM/SIGINT; several workers may run at once.",
    )
    .option('--once', 'run every job once and exit')
    .option('--interval <seconds>', `seconds between rounds, 1 to ${MAX_INTERVAL_SECONDS}`, '60')
    .option('--json', 'with --once: print one JSON object')
    .action(async (options: Options) => {
      const interval = positiveInt(options.interval, '--interval')
      // Past 2^31 ms Node's timers fire at once: the worker would loop without pause.
      if (interval > MAX_INTERVAL_SECONDS)
        throw new UsageError(
          `--interval must be at most ${MAX_INTERVAL_SECONDS} seconds (a day), got '${interval}'`,
        )
      if (options.json && !options.once)
        throw new UsageError('--json needs --once: a looping worker logs instead')
      const intervalMs = interval * 1000
      await withDatabase(
        io,
        async (db, config) => {
          // Logs go to stderr: stdout carries only the command's result.
          const log = pino({ level: config.logLevel, base: { name: 'amparo-worker' } }, { write: io.err })
          const gateway = await gatewayOf(config, db)
          if (!gateway) log.warn({}, 'no payment gateway (AMPARO_PAYMENT_GATEWAY=none): recurrence skipped')
          // prom-client is loaded only when metrics are served.
          const exporter = config.metrics.port && !options.once ? await import('../plugins/metrics.js') : null
          const metrics = exporter?.createMetrics(db)
          const metricsServer =
            exporter && metrics
              ? await exporter.serveMetrics(metrics, config.metrics.host, config.metrics.port)
              : null
          const deps = workerDeps(db, config, { gateway, log, metrics })
          if (options.once) {
            const jobs = await runJobsOnce(deps).then(
              (run) => ({ run }),
              (error: unknown) => ({ error }),
            )
            // The events the jobs just wrote are delivered in the same run.
            const webhooks = await deliverWebhooksOnce({ ...deps, env: config.env })
            // And their messages to the insured (sent, or kept without a mail server).
            await deliverMessagesOnce({ ...deps, mail: config.mail })
            if ('error' in jobs) {
              // Each failure with its stack on stderr; the exit code and last line say a job failed.
              if (jobs.error instanceof JobsFailedError)
                log.error({ err: jobs.error, ...jobs.error.run }, 'worker round failed')
              throw jobs.error
            }
            const { run } = jobs
            report(io, options.json, { ...run, webhooks }, describeRun(run, webhooks))
            return
          }
          const background = startBackground(deps, { intervalMs, env: config.env, mail: config.mail })
          const stop = (signal: NodeJS.Signals) => {
            log.info({ signal }, 'stopping after the current batch')
            void background.stop()
          }
          process.once('SIGTERM', stop)
          process.once('SIGINT', stop)
          try {
            log.info({ interval_seconds: intervalMs / 1000 }, 'worker started')
            await background.done
          } finally {
            process.off('SIGTERM', stop)
            process.off('SIGINT', stop)
            metricsServer?.close()
          }
        },
        { waitForDatabase: true },
      )
    })
}

function describeRun(
  { reconciliation, recurrence, refunds, expiry, coverage, idempotency, events, deliveries }: WorkerRun,
  webhooks: WebhookResult,
): string {
  const billing =
    'skipped' in recurrence
      ? `Recurrence skipped: ${recurrence.skipped}.`
      : `Recurrence: ${recurrence.charged} charged, ${recurrence.declined} declined, ${recurrence.refused} refused, ${recurrence.canceled} subscriptions canceled, ${recurrence.errors} errors.`
  const refunding =
    'skipped' in refunds
      ? `Refunds skipped: ${refunds.skipped}.`
      : `Refunds: ${refunds.refunded} paid, ${refunds.retried} to retry, ${refunds.failed} failed, ${refunds.errors} errors.`
  const reconciling =
    'skipped' in reconciliation
      ? `Reconciliation skipped: ${reconciliation.skipped}.`
      : `Reconciliation: ${reconciliation.recorded} unrecorded card charges recorded, ${reconciliation.errors} errors.`
  return [
    reconciling,
    billing,
    refunding,
    `Expiry: ${expiry.canceled} unpaid pending subscriptions canceled.`,
    `Coverage clock: ${coverage.protected} annual plans now protected, ${coverage.expired} expired.`,
    `Idempotency keys purged: ${idempotency.purged}.`,
    `Events purged (older than 30 days): ${events.purged}.`,
    `Webhooks: ${webhooks.succeeded} delivered, ${webhooks.retried} to retry, ${webhooks.failed} failed, ${webhooks.disabled} endpoints disabled; ${deliveries.purged} old deliveries purged.`,
  ].join('\n')
}
