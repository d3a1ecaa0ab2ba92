import type { Db } from '../db/database.js'
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
}

export const silentLog: JobLog = { debug() {}, info() {}, warn() {}, error() {} }

export const DEFAULT_BATCH_SIZE = 50
