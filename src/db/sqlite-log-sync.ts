import { closeSync, fdatasync, openSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { dirname } from 'node:path'
import { promisify } from 'node:util'
import type { Db } from './schema.js'

// The service's connection commits with `synchronous = NORMAL`: SQLite writes the commit to the
// log (the operating system holds it) without syncing it, so a commit takes ≈ 0.1 ms of the event
// loop rather than an fsync's 2 – 60 ms, during which no request ran. Group commit answers a
// group's members only once the log is synced here, on libuv's thread pool: an answer still means
// its commit is on disk, as with `synchronous = FULL` (docs/decisions.md, Performance).

/** Resolves once everything written to the log before the call is on disk; `inFlight`, the sync running. */
export type LogSync = (() => Promise<void>) & { inFlight?: () => Promise<void> | undefined }

const logSyncs = new WeakMap<Db, LogSync>()
const datasync = promisify(fdatasync)

/**
 * Makes `db`'s write transactions answer only once `sync` resolved after their commit: for a
 * connection that commits without syncing its log (transaction.ts awaits it).
 */
export function syncsLogOnCommit(db: Db, sync: LogSync): void {
  logSyncs.set(db, sync)
}

/** What `db`'s commits await before they answer; none on PostgreSQL or in memory. */
export function logSyncAfterCommit(db: Db): LogSync | undefined {
  return logSyncs.get(db)
}

/**
 * Resolves once everything written to `file`'s log before the call is on disk; `close` before the
 * connection closes. The log is held open from the first sync: SQLite removes it only when the last
 * connection closes, and a sync on a held descriptor costs about half of one that opens the file.
 */
export function logSync(file: string): LogSync & { close: () => void } {
  let fd: number | undefined
  // The log's directory entry too, once: SQLite created the log with the first write.
  let directorySynced = false
  const sync = logSyncOf(async () => {
    fd ??= openSync(`${file}-wal`, 'r')
    await datasync(fd)
    if (directorySynced) return
    const directory = await open(dirname(file), 'r')
    try {
      await directory.sync()
    } finally {
      await directory.close()
    }
    directorySynced = true
  })
  return Object.assign(sync, {
    close: () => {
      if (fd !== undefined) closeSync(fd)
      fd = undefined
    },
  })
}

/**
 * `sync` shared by its callers: a call while one runs waits for the next, which starts when that
 * one ends and serves every call made meanwhile. One sync in flight and one waiting at most,
 * however many groups commit in between.
 */
export function logSyncOf(sync: () => Promise<void>): LogSync {
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
  const call = () => {
    if (!running) return start()
    waiting ??= running.then(next, next)
    return waiting
  }
  return Object.assign(call, { inFlight: () => running })
}
