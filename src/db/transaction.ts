import { setTimeout as sleep } from 'node:timers/promises'
import { type Db, isPostgres, type Trx } from './database.js'
import { inGroup } from './group-commit.js'

const BUSY = /^SQLITE_BUSY/
const RETRYABLE_PG = new Set(['40001', '40P01'])
const MAX_ATTEMPTS = 20

function isRetryable(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? '')
  return BUSY.test(code) || RETRYABLE_PG.has(code)
}

/**
 * A transaction, run again from the start when the database refuses it for a concurrent writer:
 * every write transaction of the service goes through here, since on SQLite an `amparo worker` or
 * a second API process writes to the same file.
 *
 * SQLite refuses at once when a transaction that has read tries to write while another connection
 * writes, or after another one committed (its snapshot is stale). A transaction whose first
 * statement writes would instead wait in SQLite's busy handler, which sleeps synchronously and so
 * stops the whole event loop (and, for two connections of one process, the very writer it waits
 * for); so each transaction here opens its snapshot with a read first, and waits asynchronously.
 * PostgreSQL's serialization failures and deadlocks are retried too. `work` must not have effects
 * outside the database. On SQLite the transactions of one turn of the event loop run as one, which
 * reads first (group-commit.ts); there a transaction is refused, and spends an attempt, only for its
 * own statement or for the group's commit, never for another member's.
 */
export async function retryingTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  const sqlite = !isPostgres(db)
  for (let attempt = 1; ; attempt++) {
    try {
      if (sqlite) return await inGroup(db, work, isRetryable)
      return await db.transaction().execute(work)
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error
      await sleep(Math.random() * Math.min(100, 5 * 2 ** attempt))
    }
  }
}

/** Opens a write transaction around `work`: `retryingTransaction`, or a request's (plugins/unit-of-work.ts). */
export type Transactor<T> = (work: (trx: Trx) => Promise<T>) => Promise<T>
