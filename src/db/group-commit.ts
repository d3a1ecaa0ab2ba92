import { type ControlledTransaction, sql } from 'kysely'
import type { Database, Db, Trx } from './database.js'

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
export function inGroup<T>(
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
      setImmediate(() => {
        if (queues.get(db) === members) queues.delete(db)
        void runGroup(db, members, isRetryable)
      })
    }
    queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
  })
}

async function runGroup(db: Db, members: Member[], isRetryable: (error: unknown) => boolean) {
  // Alone, a member keeps nobody waiting: no budget.
  const budget = members.length === 1 ? undefined : new Budget(BUDGET_MS)
  try {
    await runMembers(db, members, isRetryable, budget)
  } finally {
    budget?.end()
  }
}

async function runMembers(
  db: Db,
  members: Member[],
  isRetryable: (error: unknown) => boolean,
  budget: Budget | undefined,
) {
  // Members still to answer: a refused one is answered at once.
  let open = members
  const done: [Member, unknown][] = []
  let trx: ControlledTransaction<Database> | undefined
  try {
    trx = await db.startTransaction().execute()
    // A snapshot read first: see retryingTransaction.
    await sql`select 1 from sqlite_schema limit 1`.execute(trx)
    for (const [index, member] of members.entries()) {
      const outcome = await runMember(trx, member, `m${index}`, budget)
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
  for (const [member, value] of done) member.resolve(value)
}

/** Runs one member in a savepoint of `trx`; without a budget it may take its time. */
async function runMember(
  trx: ControlledTransaction<Database>,
  member: Member,
  name: string,
  budget: Budget | undefined,
): Promise<Outcome> {
  const savepoint = await trx.savepoint(name).execute()
  try {
    const run = member.work(savepoint as unknown as Trx)
    const value = budget ? await budget.race(run) : await run
    if (value === LATE) return { late: run }
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
  }
}

const LATE = Symbol('late')

/**
 * A group's members' budget: each member's work may run `ms` from its own start. One timer for the
 * whole group rather than one a member, whose setting and clearing a contract paid for
 * (docs/benchmarks.md).
 */
class Budget {
  #started = 0
  #running = false
  #timer: NodeJS.Timeout | undefined
  #expire: ((late: typeof LATE) => void) | undefined
  readonly #over = new Promise<typeof LATE>((expire) => {
    this.#expire = expire
  })

  constructor(readonly ms: number) {}

  /** `run`'s value, or LATE once it has run `ms`. */
  async race<T>(run: Promise<T>): Promise<T | typeof LATE> {
    this.#started = performance.now()
    this.#running = true
    this.#timer ??= setTimeout(this.#check, this.ms)
    try {
      return await Promise.race([run, this.#over])
    } finally {
      this.#running = false
    }
  }

  // Fired: the running member is late once its own `ms` have passed; between members, or before
  // its deadline, the timer waits again.
  #check = () => {
    const left = this.#started + this.ms - performance.now()
    if (this.#running && left <= 0) this.#expire?.(LATE)
    else this.#timer = setTimeout(this.#check, this.#running ? left : this.ms)
  }

  /** The group is over: no more timer. */
  end(): void {
    clearTimeout(this.#timer)
  }
}
