import type { Db } from '../db/database.js'
import type { EventContext } from '../modules/events/event.service.js'
import type { Clock } from '../shared/clock.js'

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
  /** Base of the links in the events' resources (eventContext: AMPARO_PUBLIC_URL or the local default). */
  base?: string
}

/** How the jobs render their events' resources; without `base`, the default port's local address. */
export const jobEvents = ({ base, timeZone }: JobDeps): EventContext => ({
  base: base ?? 'http://localhost:3000',
  timeZone,
})

export const silentLog: JobLog = { debug() {}, info() {}, warn() {}, error() {} }

export const DEFAULT_BATCH_SIZE = 50
