import { AsyncLocalStorage, createHook } from 'node:async_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { type ControlledTransaction, sql } from 'kysely'
import { type Database, type Db, isPostgres, type Trx } from './database.js'
import { logSyncAfterCommit } from './sqlite-log-sync.js'

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
 * reads first, and starts in a later turn (the group commit, below); there a transaction is refused, and
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
      // The one place a `Trx` is made (with the group commit's savepoint on SQLite).
      return await db.transaction().execute((trx) => guarded(trx as Trx))
    } catch (error) {
      if (!isRetryable(error) || Date.now() - started >= RETRY_FOR_MS) throw error
      await sleep(Math.random() * Math.min(100, 5 * 2 ** attempt))
    }
  }
}

/** Opens a write transaction around `work`: `retryingTransaction`, or a request's (plugins/unit-of-work.ts). */
export type Transactor<T> = (work: (trx: Trx) => Promise<T>) => Promise<T>

// SQLite: the write transactions that arrive in one turn of the event loop commit together. A
// commit writes every page it changed to the log, and most of a contract's pages (the right edge of
// each index, the partner's counter, the sequence table) are the next contract's too: one commit
// for the turn writes them once (docs/decisions.md, Performance). The transactions wait for the end
// of the turn (setImmediate), then run one after the other, each in a savepoint of one transaction;
// each answers once that transaction committed. The write lock is held only while they run, as a
// single transaction holds it.
//
// One member's failure is that member's alone:
// - an error that leaves the transaction open (a 4xx refusal, or its own statement refused with
//   SQLITE_BUSY) rolls back to its savepoint and rejects only it; the others go on and commit, and
//   `retryingTransaction` runs a refused one again (so only its own BUSY spends its attempts);
// - an error after which SQLite ended the transaction itself (SQLITE_FULL, IOERR, NOMEM, INTERRUPT:
//   its savepoint is gone) undoes every member: the others run again as a new group without it,
//   and it runs again alone, where its error is its own;
// - a member that holds its group past `BUDGET_MS` (it awaits something besides the database) has
//   the transaction rolled back under it, so its next statement fails; the others run again as a
//   new group without it, and once its first run settled it runs again alone, with no budget;
// - a commit SQLite refuses (SQLITE_BUSY: another process's writer) rejects every member, each to
//   be run again by `retryingTransaction`; any other failed commit runs each member again alone.
// Every run again leaves out at least one member, so a group's work ends. A group takes at most
// `MAX_MEMBERS`: it bounds how long one commit holds the write lock and how much one failed
// commit runs again (docs/decisions.md, Performance).

/** Members of one group at most; the turn's next ones form the next group. */
const MAX_MEMBERS = 64
/** How long a member may keep the others of its group waiting: a request's statements take ≈ 1 ms. */
const BUDGET_MS = 250

interface Member {
  work: (trx: Trx) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

/** What one member's run in the group's transaction came to. */
type Outcome =
  | { done: true; value: unknown }
  | { refused: unknown }
  | { ended: unknown }
  | { late: Promise<unknown> }

const queues = new WeakMap<Db, Member[]>()

/**
 * Runs `work` with the other write transactions of this turn on `db`, in one transaction; resolves
 * once it committed, or rejects with its own error (after which nothing of it stays). `isRetryable`
 * tells a commit the database refused (every member is rejected with it, to run again) from one
 * that failed otherwise.
 */
function inGroup<T>(
  db: Db,
  work: (trx: Trx) => Promise<T>,
  isRetryable: (error: unknown) => boolean,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let queue = queues.get(db)
    if (!queue || queue.length >= MAX_MEMBERS) {
      const members: Member[] = []
      queue = members
      queues.set(db, members)
      const begin = () => {
        if (queues.get(db) === members) queues.delete(db)
        void runGroup(db, members, isRetryable)
      }
      // While the log's sync runs, the group waits for it to end: its members could not answer
      // before the next sync anyway, and those that come meanwhile join them (one commit, one
      // sync), as the 50 connections of a busy service do at the end of a turn.
      const syncing = logSyncAfterCommit(db)?.inFlight?.()
      const next = () => setImmediate(begin)
      if (syncing) syncing.then(next, next)
      else next()
    }
    queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
  })
}

async function runGroup(db: Db, members: Member[], isRetryable: (error: unknown) => boolean) {
  const alone = members.length === 1
  // Members still to answer: a refused one is answered at once.
  let open = members
  const done: [Member, unknown][] = []
  let trx: ControlledTransaction<Database> | undefined
  try {
    trx = await db.startTransaction().execute()
    // A snapshot read first: see retryingTransaction.
    await sql`select 1 from sqlite_schema limit 1`.execute(trx)
    for (const [index, member] of members.entries()) {
      const outcome = await runMember(trx, member, `m${index}`, alone ? undefined : BUDGET_MS)
      if ('done' in outcome) {
        done.push([member, outcome.value])
        continue
      }
      if ('refused' in outcome) {
        member.reject(outcome.refused)
        open = open.filter((m) => m !== member)
        continue
      }
      // Nothing of this transaction stays: the others run again without this member.
      await trx
        .rollback()
        .execute()
        .catch(() => {})
      const others = open.filter((m) => m !== member)
      if (others.length > 0) void runGroup(db, others, isRetryable)
      const again = () => void runGroup(db, [member], isRetryable)
      if ('late' in outcome) outcome.late.then(again, again)
      else if (others.length > 0) again()
      else member.reject(outcome.ended)
      return
    }
    await trx.commit().execute()
  } catch (error) {
    await trx
      ?.rollback()
      .execute()
      .catch(() => {})
    if (open.length === 1 || isRetryable(error)) for (const member of open) member.reject(error)
    else for (const member of open) void runGroup(db, [member], isRetryable)
    return
  }
  // Committed; an answer waits for the commit to be on disk. Should the sync fail, nothing says
  // the commit will survive a power loss: each member fails (a retry with its key finds it done).
  try {
    await logSyncAfterCommit(db)?.()
  } catch (error) {
    for (const [member] of done) member.reject(error)
    return
  }
  for (const [member, value] of done) member.resolve(value)
}

/** Runs one member in a savepoint of `trx`; `budgetMs` undefined lets it take its time. */
async function runMember(
  trx: ControlledTransaction<Database>,
  member: Member,
  name: string,
  budgetMs: number | undefined,
): Promise<Outcome> {
  const savepoint = await trx.savepoint(name).execute()
  let timer: NodeJS.Timeout | undefined
  const late = Symbol('late')
  try {
    const run = member.work(savepoint as unknown as Trx)
    const deadline =
      budgetMs === undefined
        ? []
        : [new Promise<typeof late>((ok) => (timer = setTimeout(ok, budgetMs, late)))]
    const value = await Promise.race([run, ...deadline])
    if (value === late) return { late: run }
    // Fails too when the work caught an error that ended the transaction and went on.
    await savepoint.releaseSavepoint(name).execute()
    return { done: true, value }
  } catch (error) {
    try {
      await savepoint.rollbackToSavepoint(name).execute()
      await savepoint.releaseSavepoint(name).execute()
    } catch {
      // No such savepoint: SQLite ended the transaction with this member's statement.
      return { ended: error }
    }
    return { refused: error }
  } finally {
    clearTimeout(timer)
  }
}

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
