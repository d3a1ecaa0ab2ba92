import { open } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Db } from './schema.js'

// The service's connection commits with `synchronous = NORMAL`: SQLite writes the commit to the
// log (the operating system holds it) without syncing it, so a commit takes ≈ 0.1 ms of the event
// loop rather than an fsync's 2 – 60 ms, during which no request ran. Group commit answers a
// group's members only once the log is synced here, on libuv's thread pool: an answer still means
// its commit is on disk, as with `synchronous = FULL` (docs/decisions.md, Performance).

const logSyncs = new WeakMap<Db, () => Promise<void>>()

/**
 * Makes `db`'s write transactions answer only once `sync` resolved after their commit: for a
 * connection that commits without syncing its log (transaction.ts awaits it).
 */
export function syncsLogOnCommit(db: Db, sync: () => Promise<void>): void {
  logSyncs.set(db, sync)
}

/** What `db`'s commits await before they answer; none on PostgreSQL or in memory. */
export function logSyncAfterCommit(db: Db): (() => Promise<void>) | undefined {
  return logSyncs.get(db)
}

/** Resolves once everything written to `file`'s log before the call is on disk. */
export function logSync(file: string): () => Promise<void> {
  const log = `${file}-wal`
  // The log's directory entry too, once: SQLite creates the log with the first write.
  let directorySynced = false
  return logSyncOf(async () => {
    await synced(log, 'data')
    if (directorySynced) return
    await synced(dirname(file), 'all')
    directorySynced = true
  })
}

/**
 * `sync` shared by its callers: a call while one runs waits for the next, which starts when that
 * one ends and serves every call made meanwhile. One sync in flight and one waiting at most,
 * however many groups commit in between.
 */
export function logSyncOf(sync: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined
  let waiting: Promise<void> | undefined
  const start = (): Promise<void> => {
    const current = sync().finally(() => {
      if (running === current) running = undefined
    })
    running = current
    return current
  }
  const next = () => {
    waiting = undefined
    return start()
  }
  return () => {
    if (!running) return start()
    waiting ??= running.then(next, next)
    return waiting
  }
}

async function synced(path: string, what: 'data' | 'all'): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await (what === 'data' ? handle.datasync() : handle.sync())
  } finally {
    await handle.close()
  }
}
