import { AsyncLocalStorage, createHook } from 'node:async_hooks'

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
    .filter((line) => /\/src\//.test(line) && !/transaction-guard/.test(line))
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
