import { AsyncLocalStorage, createHook } from 'node:async_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { type Db, isPostgres, type Trx } from './database.js'
import { inGroup } from './group-commit.js'

const BUSY = /^SQLITE_BUSY/
const RETRYABLE_PG = new Set(['40001', '40P01'])
/** How long a transaction is retried for a concurrent writer: as long as the busy handler once waited. */
const RETRY_FOR_MS = 5000

function isRetryable(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? '')
  return BUSY.test(code) || RETRYABLE_PG.has(code)
}

/**
 * A transaction, run again from the start when the database refuses it for a concurrent writer:
 * every write of the service goes through here (or a request's unit of work, which calls it),
 * since on SQLite an `amparo worker` or a second API process writes to the same file.
 *
 * SQLite refuses at once when a transaction that has read tries to write while another connection
 * writes, or after another one committed (its snapshot is stale); the service's connection has no
 * busy handler (sqlite.ts), which would sleep synchronously and stop the whole event loop, so every
 * wait for another writer is the asynchronous one here (up to RETRY_FOR_MS). PostgreSQL's
 * serialization failures and deadlocks are retried too. `work` holds the database only: no effect
 * outside it, and no hashing, rendering, file or network work in it (the guard below fails a
 * test that does). On SQLite the transactions of one turn of the event loop run as one, which
 * reads first, and starts in a later turn (group-commit.ts); there a transaction is refused, and
 * spends an attempt, only for its own statement or for the group's commit, never for another member's.
 * It is the only maker of a `Trx`, which every function that writes takes (database.ts).
 */
export async function retryingTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  const sqlite = !isPostgres(db)
  const guarded = (trx: Trx) => holdingDatabaseOnly(() => work(trx))
  const started = Date.now()
  for (let attempt = 1; ; attempt++) {
    try {
      if (sqlite) return await inGroup(db, guarded, isRetryable)
      // The one place a `Trx` is made (with group-commit.ts's savepoint on SQLite).
      return await db.transaction().execute((trx) => guarded(trx as Trx))
    } catch (error) {
      if (!isRetryable(error) || Date.now() - started >= RETRY_FOR_MS) throw error
      await sleep(Math.random() * Math.min(100, 5 * 2 ** attempt))
    }
  }
}

/** Opens a write transaction around `work`: `retryingTransaction`, or a request's (plugins/unit-of-work.ts). */
export type Transactor<T> = (work: (trx: Trx) => Promise<T>) => Promise<T>

// A write transaction holds the database only (src/db/README.md, Transactions): on SQLite it holds
// the one connection and the file's write lock, so hashing, rendering, network or file work inside
// it stops every other writer. In test runs (test/helpers/transaction-guard.ts turns it on) each
// transaction's work runs in a context of its own, and any asynchronous resource it creates that is
// not a promise, timer or tick is recorded: scrypt (SCRYPTREQUEST), files (FSREQCALLBACK,
// FSREQPROMISE), connections and lookups (TCPCONNECTWRAP, GETADDRINFOREQWRAP), a child process….
// CPU work that creates none (a QR code) says so itself with `outsideTransaction`. The transaction
// then fails, and the test with it.

/**
 * What a transaction may create: promises, timers, ticks, PostgreSQL's writes to its socket, and
 * random bytes (a code or token drawn in it: `randomBytes` creates one even when synchronous).
 */
const ALLOWED = new Set([
  'PROMISE',
  'Timeout',
  'Immediate',
  'TickObject',
  'Microtask',
  'WRITEWRAP',
  'RANDOMBYTESREQUEST',
])

interface Watch {
  found: string[]
}

const within = new AsyncLocalStorage<Watch>()
const violations: string[] = []
let on = false
// Enabled only while a transaction's work runs: the hook costs every promise a call.
const hook = createHook({
  init(_id, type) {
    if (!ALLOWED.has(type)) within.getStore()?.found.push(`${type}${origin()}`)
  },
})
let running = 0

/** Turns the guard on for this process (tests only). */
export function guardTransactions(): void {
  on = true
}

/** Where the service's code asked for it: the first frames under src/, for the test's message. */
function origin(): string {
  const frames = (new Error().stack ?? '')
    .split('\n')
    .filter((line) => /\/src\//.test(line) && !/\/src\/db\/transaction\.ts/.test(line))
  return frames.length > 0
    ? ` (${frames
        .slice(0, 3)
        .map((line) => line.trim())
        .join(' ← ')})`
    : ''
}

export class ForeignWorkInTransaction extends Error {}

/** Runs a transaction's `work`; with the guard on, fails it if it did anything but the database's. */
export async function holdingDatabaseOnly<T>(work: () => Promise<T>): Promise<T> {
  if (!on) return work()
  const watch: Watch = { found: [] }
  if (running++ === 0) hook.enable()
  let value: T
  try {
    value = await within.run(watch, work)
  } finally {
    if (--running === 0) hook.disable()
  }
  if (watch.found.length > 0) {
    const message = `a write transaction awaited ${[...new Set(watch.found)].join(', ')}: do it before or after`
    violations.push(message)
    throw new ForeignWorkInTransaction(message)
  }
  return value
}

/** Called by CPU-heavy work the hook cannot see (rendering): with the guard on, a transaction running it fails. */
export function outsideTransaction(what: string): void {
  within.getStore()?.found.push(what)
}

/** The violations recorded since the last call (a test fails on any, even one its code caught). */
export function takeViolations(): string[] {
  return violations.splice(0)
}
