import { advanceCoverageClock } from '../modules/annual-plans/annual-plan-lifecycle.service.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import type { Metrics } from '../plugins/metrics.js'
import { type JobDeps, jobEvents } from './job.js'
import { type ExpiryResult, expirePendingSubscriptions } from './pending-expiry.job.js'
import { type RecurrenceResult, runRecurrence } from './recurrence.job.js'
import { type RefundsResult, runRefunds } from './refunds.job.js'
import { endSubscriptions, type SubscriptionEndResult } from './subscription-end.job.js'

export interface PartnerJobsDeps extends JobDeps {
  /** The own card gateway; null (AMPARO_PAYMENT_GATEWAY=none) skips the recurrence and the refunds. */
  gateway: PaymentGateway | null
  /** Job counters for Prometheus (METRICS_PORT). */
  metrics?: Metrics
}

/** What the jobs on partners' rows did in one run. */
export interface PartnerJobsRun {
  recurrence: RecurrenceResult | { skipped: string }
  expiry: ExpiryResult
  subscription_end: SubscriptionEndResult
  coverage: { protected: number; expired: number }
  refunds: RefundsResult | { skipped: string }
}

/** Runs one job: its result, or undefined once its failure is noted. */
export type Attempt = <T extends object>(job: string, run: () => Promise<T>) => Promise<T | undefined>

export const NO_GATEWAY = 'no payment gateway (AMPARO_PAYMENT_GATEWAY=none)'

/**
 * The jobs that change partners' subscriptions and annual plans, at `deps.clock` and within
 * `deps.scope`, in the order a day goes by (docs/decisions.md, Sandbox test clock): installments charged on their due
 * dates and retried (the last retry cancels), unpaid subscriptions expired, subscriptions past their
 * last month ended, coverage started and ended, refunds paid. A job that fails does not keep the later ones from running.
 */
export async function runPartnerJobs(
  deps: PartnerJobsDeps,
  attempt: Attempt,
): Promise<Partial<PartnerJobsRun>> {
  const { gateway, metrics: _, ...jobDeps } = deps
  const recurrence = gateway
    ? await attempt('recurrence', () => runRecurrence({ ...jobDeps, gateway }))
    : { skipped: NO_GATEWAY }
  const expiry = await attempt('pending_expiry', () => expirePendingSubscriptions(jobDeps))
  const subscription_end = await attempt('subscription_end', () => endSubscriptions(jobDeps))
  const coverage = await attempt('coverage_clock', () =>
    advanceCoverageClock(jobDeps.db, jobDeps.clock.now().toISOString(), jobEvents(jobDeps), {
      scope: jobDeps.scope,
    }),
  )
  const refunds = gateway
    ? await attempt('refunds', () => runRefunds({ ...jobDeps, gateway }))
    : { skipped: NO_GATEWAY }
  return { recurrence, expiry, subscription_end, coverage, refunds }
}

/** Adds `more`'s counts to `total`'s, job by job (a job that did not run adds nothing). */
export function addRuns(
  total: Partial<PartnerJobsRun>,
  more: Partial<PartnerJobsRun>,
): Partial<PartnerJobsRun> {
  const sum = { ...total }
  for (const job of ['recurrence', 'expiry', 'subscription_end', 'coverage', 'refunds'] as const) {
    const [a, b] = [total[job], more[job]]
    if (!a || !b || 'skipped' in a || 'skipped' in b) continue
    const added: Record<string, number> = { ...(a as unknown as Record<string, number>) }
    for (const [key, n] of Object.entries(b)) added[key] = (added[key] ?? 0) + (n as number)
    Object.assign(sum, { [job]: added })
  }
  return sum
}
