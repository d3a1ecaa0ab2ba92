import { setTimeout as sleep } from 'node:timers/promises'
import type { Db, Trx } from './database.js'

const BUSY = /^SQLITE_BUSY/
const RETRYABLE_PG = new Set(['40001', '40P01'])
const MAX_ATTEMPTS = 20

function isRetryable(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? '')
  return BUSY.test(code) || RETRYABLE_PG.has(code)
}

/**
 * A transaction, run again from the start when the database refuses it for a concurrent writer.
 * SQLite does so at once (no busy wait) when a transaction that has read tries to write while
 * another connection writes, or after it committed (the read snapshot is stale); waiting
 * asynchronously, rather than in SQLite's busy handler, lets a writer of the same process finish.
 * PostgreSQL's serialization failures and deadlocks are retried too. `work` must start with a
 * read and must not have effects outside the database.
 */
export async function retryingTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work)
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error
      await sleep(Math.random() * Math.min(100, 5 * 2 ** attempt))
    }
  }
}
