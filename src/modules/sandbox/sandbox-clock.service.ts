import type { Db } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { AppError } from '../../shared/errors.js'
import { type Clock, formatTimestamp, shiftedClock } from '../../shared/time.js'
import {
  claimClock,
  findClockOffset,
  findShiftedPartners,
  moveClaimedClock,
  releaseClock,
} from './sandbox-clock.repository.js'
import { advanceSeconds, clockSteps } from './sandbox-clock.rules.js'

// The sandbox test clock (docs/decisions.md, Sandbox test clock): each partner's own time in `test`, moved forward on
// request, with the background jobs run for that partner as at each day crossed.

/**
 * How long (real time) an advance holds the partner's clock before another may take it over: what
 * a process killed mid-advance costs. Renewed at each day stored, so it only needs to outlast one
 * day of jobs (docs/decisions.md).
 */
const HOLD_SECONDS = 30

export type ClockReading = { now: string; advanced_by_seconds: number }

const reading = (real: Clock, offsetSeconds: number, timeZone: string): ClockReading => ({
  now: formatTimestamp(shiftedClock(real, offsetSeconds).now(), timeZone),
  advanced_by_seconds: offsetSeconds,
})

export async function showClock(
  db: Db,
  partnerId: number,
  real: Clock,
  timeZone: string,
): Promise<ClockReading> {
  return reading(real, await findClockOffset(db, partnerId), timeZone)
}

/** Partners whose clock is ahead of real time and not being advanced: the worker runs each at its time. */
export async function shiftedPartners(db: Db, now: string) {
  return findShiftedPartners(db, now)
}

/** What each job did in a run, by job name; a job that did not run is absent. */
export type JobCounts = Partial<Record<keyof typeof NO_JOBS, object>>

/** pino's `(details, message)` form, as the jobs log. */
interface Log {
  debug(details: object, message: string): void
  info(details: object, message: string): void
  warn(details: object, message: string): void
  error(details: object, message: string): void
}

/**
 * The background jobs an advance runs at each day crossed. The worker provides them (app.ts passes
 * them to the routes), so that this module never imports worker/.
 */
export interface PartnerJobs {
  /** Runs the jobs on `partnerId`'s rows as at `clock`; throws the first job's failure. */
  run(db: Db, partnerId: number, clock: Clock, log?: Log): Promise<JobCounts>
  /** `total`'s counts plus `more`'s, job by job. */
  add(total: JobCounts, more: JobCounts): JobCounts
}

/** What an advance needs: the real clock, and the jobs to run at each day crossed. */
export interface AdvanceDeps {
  db: Db
  clock: Clock
  timeZone: string
  jobs: PartnerJobs
  log?: Log
  /** The request's Idempotency-Key: its retry after a crash finishes this advance. */
  key?: string | null
}

/** 409 while another advance holds the clock; `Retry-After`: the seconds its hold has left. */
class ClockAdvancingError extends AppError {
  override readonly retryAfterSeconds: number

  constructor(heldUntil: string | null, now: Date) {
    super('clock_advancing', 'This clock is being advanced by another request; try again once it ends.')
    const left = heldUntil === null ? 0 : Date.parse(heldUntil) - now.getTime()
    this.retryAfterSeconds = Math.max(1, Math.ceil(left / 1000))
  }
}

// The counts start at zero, so a job skipped for want of a gateway answers zeros, not `skipped`.
const NO_JOBS = {
  recurrence: { charged: 0, declined: 0, refused: 0, canceled: 0, errors: 0 },
  expiry: { canceled: 0 },
  subscription_end: { expired: 0 },
  coverage: { protected: 0, expired: 0 },
  refunds: { refunded: 0, retried: 0, failed: 0, errors: 0 },
}

type AdvanceJobs = typeof NO_JOBS & { days: number }

/**
 * Moves the partner's clock forward, a day at a time: at each day crossed its jobs run at that
 * day's time (the partner's rows only), then the clock is stored there. Another advance of the
 * same partner running meanwhile, in any process, is refused (409). A failure stops the advance
 * with the clock at the last day fully processed, and says where (500). Retried with the key of the
 * last advance (its process died, its answer was lost), it goes on to where that one was going.
 */
export async function advanceClock(
  partnerId: number,
  body: { days?: number; hours?: number },
  deps: AdvanceDeps,
): Promise<ClockReading & { jobs: AdvanceJobs }> {
  const { clock: real, timeZone, log } = deps
  // Thousands of statements: on SQLite, other requests of the process run between its
  // transactions, each started in a turn of its own (src/db/README.md, Transactions).
  const { db } = deps
  const holdUntil = () => new Date(real.now().getTime() + HOLD_SECONDS * 1000).toISOString()
  let held = holdUntil()
  const advance = {
    key: deps.key ?? null,
    to: (from: number, resumed: number | null) => resumed ?? from + advanceSeconds(body, from),
  }
  const claim = await retryingTransaction(db, (trx) =>
    claimClock(trx, partnerId, real.now().toISOString(), held, advance),
  )
  if ('heldUntil' in claim) throw new ClockAdvancingError(claim.heldUntil, real.now())
  const start = claim.offset
  let offset = start
  let jobs: JobCounts = NO_JOBS
  let days = 0
  try {
    for (const next of clockSteps(start, claim.to - start)) {
      const run = await deps.jobs.run(db, partnerId, shiftedClock(real, next), log)
      const until = holdUntil()
      const moved = await retryingTransaction(db, (trx) =>
        moveClaimedClock(trx, partnerId, { held, until }, next),
      )
      if (!moved) {
        throw new Error('the hold on the sandbox clock ran out and was taken over')
      }
      held = until
      offset = next
      jobs = deps.jobs.add(jobs, run)
      days += 1
    }
  } catch (error) {
    if (error instanceof AppError) throw error
    log?.error(
      { err: error, partner_id: partnerId, advanced_by_seconds: offset },
      'sandbox clock advance failed',
    )
    const stopped = reading(real, offset, timeZone)
    throw new AppError(
      'server_error',
      `The advance failed midway; the clock stays at the last day fully processed: ${stopped.now}, advanced by ${stopped.advanced_by_seconds} seconds.`,
    )
  } finally {
    await retryingTransaction(db, (trx) => releaseClock(trx, partnerId, held)).catch((error: unknown) => {
      log?.warn(
        { err: error, partner_id: partnerId },
        'sandbox clock hold not released; it runs out by itself',
      )
    })
  }
  return {
    ...reading(real, offset, timeZone),
    jobs: { days, ...NO_JOBS, ...jobs } as AdvanceJobs,
  }
}

/**
 * The partner's time for work no request of its own starts (a gateway's event): its sandbox clock
 * in `test`, the real one in production.
 */
export async function partnerTime(
  db: Db,
  partnerId: number,
  real: Clock,
  sandboxClocks: boolean,
): Promise<Date> {
  return sandboxClocks ? shiftedClock(real, await findClockOffset(db, partnerId)).now() : real.now()
}
