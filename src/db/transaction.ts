import { setTimeout as sleep } from 'node:timers/promises'
import { type Db, isPostgres, type Trx } from './database.js'
import { inGroup } from './group-commit.js'
import { holdingDatabaseOnly } from './transaction-guard.js'

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
 * outside it, and no hashing, rendering, file or network work in it (transaction-guard.ts fails a
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
