import { type ControlledTransaction, sql } from 'kysely'
import type { Database, Db, Trx } from './database.js'

// SQLite: the write transactions that arrive in one turn of the event loop commit together. A
// commit writes every page it changed to the log, and most of a contract's pages (the right edge of
// each index, the partner's counter, the sequence table) are the next contract's too: one commit
// for the turn writes them once (docs/decisions.md, Performance). The transactions wait for the end
// of the turn (setImmediate), then run one after the other, each in a savepoint of one transaction,
// so that a refused one undoes only its own writes; each answers once that transaction committed.
// The write lock is held only while they run, as a single transaction holds it.

interface Member {
  work: (trx: Trx) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

const queues = new WeakMap<Db, Member[]>()

/**
 * Runs `work` with the other write transactions of this turn on `db`, in one transaction; resolves
 * once it committed. `isRetryable` tells an error that undoes the whole transaction (the database
 * refused it: every member's work is rejected with it, to run again) from one that undoes only
 * this work (rejected with it).
 */
export function inGroup<T>(
  db: Db,
  work: (trx: Trx) => Promise<T>,
  isRetryable: (error: unknown) => boolean,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let queue = queues.get(db)
    if (!queue) {
      queue = []
      queues.set(db, queue)
      setImmediate(() => {
        queues.delete(db)
        void runGroup(db, queue as Member[], isRetryable)
      })
    }
    queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
  })
}

async function runGroup(db: Db, members: Member[], isRetryable: (error: unknown) => boolean) {
  const done: [Member, unknown][] = []
  let trx: ControlledTransaction<Database> | undefined
  try {
    trx = await db.startTransaction().execute()
    // A snapshot read first: see retryingTransaction.
    await sql`select 1 from sqlite_schema limit 1`.execute(trx)
    for (const [index, member] of members.entries()) {
      const name = `m${index}`
      const savepoint = await trx.savepoint(name).execute()
      try {
        done.push([member, await member.work(savepoint as unknown as Trx)])
        await savepoint.releaseSavepoint(name).execute()
      } catch (error) {
        if (isRetryable(error)) throw error
        await savepoint.rollbackToSavepoint(name).execute()
        await savepoint.releaseSavepoint(name).execute()
        member.reject(error)
      }
    }
    await trx.commit().execute()
  } catch (error) {
    // The database refused the transaction: nothing of it stays, and every member runs again.
    await trx
      ?.rollback()
      .execute()
      .catch(() => {})
    // (A member refused on its own was rejected already; a promise settles once.)
    for (const member of members) member.reject(error)
    return
  }
  for (const [member, value] of done) member.resolve(value)
}
