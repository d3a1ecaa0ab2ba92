import type { Db } from '../db/database.js'
import type { PartnerScope } from '../db/partner-scope.js'
import type { RenderingContext } from '../modules/events/event.service.js'
import type { Clock } from '../shared/time.js'

/** pino's `(details, message)` form, so the CLI's pino logger fits and tests can pass a spy. */
export interface JobLog {
  debug(details: object, message: string): void
  info(details: object, message: string): void
  warn(details: object, message: string): void
  error(details: object, message: string): void
}

/** What every background job needs; tests pass a fake clock and run a whole schedule in milliseconds. */
export interface JobDeps {
  db: Db
  clock: Clock
  /** The service zone: "today", due dates and retry days are calendar days there. */
  timeZone: string
  log?: JobLog
  /** Rows taken per round trip, so one run never holds many rows (or much memory) at once. */
  batchSize?: number
  /** Checked between batches: a stop request lets the current batch finish. */
  signal?: AbortSignal
  /** How long a card charge holds its installment (`AMPARO_PAYMENT_CLAIM_SECONDS`). */
  claimSeconds?: number
  /** Gateway calls in flight at once (`AMPARO_RECURRENCE_CONCURRENCY`). */
  concurrency?: number
  /** Base of the links in the events' resources (renderingContext: AMPARO_PUBLIC_URL or the local default). */
  base?: string
  /** Whose rows the jobs take: every partner's when absent (see PartnerScope). */
  scope?: PartnerScope
}

/** How the jobs render their events' resources; without `base`, the default port's local address. */
export const jobEvents = ({ base, timeZone }: JobDeps): RenderingContext => ({
  base: base ?? 'http://localhost:3000',
  timeZone,
})

export const silentLog: JobLog = { debug() {}, info() {}, warn() {}, error() {} }

export const DEFAULT_BATCH_SIZE = 50

/**
 * Runs `work` on the items `next` reads, at most `concurrency` at once. The next batch is read as
 * soon as the last one is handed out, not once all of it is done, so one slow call never idles the
 * other lanes. A read that finds nothing new while items are in flight (the rows it saw were not
 * claimed yet) waits for one to finish and reads again; the run ends when a read finds nothing
 * and nothing is in flight, or `signal` aborts (calls in flight finish first). `work` handles its
 * own errors; a failed read ends the run and is thrown once every lane is done.
 */
export async function drainConcurrently<T>(
  next: () => Promise<T[]>,
  concurrency: number,
  work: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const buffer: T[] = []
  let done = false
  let failure: { error: unknown } | undefined
  let reading: Promise<void> | undefined
  let inFlight = 0
  let completions = 0
  let completed!: () => void
  let completion = new Promise<void>((resolve) => {
    completed = resolve
  })
  const read = async () => {
    const before = completions
    const items = await next()
    if (items.length > 0) buffer.push(...items)
    else if (completions !== before) return
    else if (inFlight === 0) done = true
    else await completion
  }
  const take = async (): Promise<T | undefined> => {
    while (buffer.length === 0 && !done && !signal?.aborted) {
      reading ??= read()
        .catch((error: unknown) => {
          failure ??= { error }
          done = true
        })
        .finally(() => {
          reading = undefined
        })
      await reading
    }
    if (signal?.aborted || buffer.length === 0) return undefined
    inFlight += 1
    return buffer.shift()
  }
  const lane = async () => {
    for (let item = await take(); item !== undefined; item = await take()) {
      try {
        await work(item)
      } finally {
        inFlight -= 1
        completions += 1
        const wake = completed
        completion = new Promise<void>((resolve) => {
          completed = resolve
        })
        wake()
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane))
  if (failure) throw failure.error
}
