import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type BetterSqlite3 from 'better-sqlite3'

// SQLite copies the write-ahead log into the database (a checkpoint) inside the commit that takes
// the log past 1,000 pages: copying and syncing stopped the event loop for 5–12 ms every ≈ 80 claim
// openings, and took ≈ 200 µs of each on average (docs/benchmarks.md, Optimisations kept). Here a
// thread with its own connection checkpoints the log every quarter second instead, beside the
// commits (PASSIVE: it never waits for a reader or writer), syncing the log and then the file. Should
// the thread stop, commits checkpoint again as before.
//
// The log starts over only when a commit begins with every page of it copied, and under a steady
// stream of commits the thread's copy is always a few commits behind, so the log grew without end.
// Once it holds `restartPages`, the thread's pass is a RESTART checkpoint: it holds the service's
// writes back while it copies the last few commits and syncs the file (they wait for it as for any
// other writer, asynchronously: transaction.ts), then starts the log over. The service's next read
// finds the log's header new and rereads the pages it had cached (SQLite's default 2 MB), from the
// operating system's cache; the event loop never waits for the sync (docs/decisions.md, Performance).
// A log that a burst took past twice the restart size is cut to nothing instead (TRUNCATE).

const EVERY_MS = 250
const STARTS_AFTER_MS = 1000
/** 16 MiB of 4 KiB pages. */
const RESTART_PAGES = 4096

// The thread's code, evaluated (the service runs as one bundled file); `driver` is better-sqlite3's path.
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads')
const { statSync } = require('node:fs')
const Database = require(workerData.driver)
const db = new Database(workerData.file)
db.pragma('synchronous = FULL')
// A RESTART holds writes back while it waits for the other connections: a long read (an export) makes
// it give up for this pass rather than hold them for long.
db.pragma('busy_timeout = 100')
const timer = setInterval(() => {
  const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)')
  if (log < workerData.restartPages) return
  const big = statSync(workerData.file + '-wal').size > 2 * workerData.restartPages * 4096
  db.pragma(big ? 'wal_checkpoint(TRUNCATE)' : 'wal_checkpoint(RESTART)')
}, workerData.everyMs)
parentPort.once('message', () => {
  clearInterval(timer)
  db.close()
  const closed = new Int32Array(workerData.closed)
  Atomics.store(closed, 0, 1)
  Atomics.notify(closed, 0)
  parentPort.close()
})
`

/**
 * Moves `raw`'s checkpoints to a thread of their own, started a second after the connection opens
 * (a migration's or a CLI command's connection closes before that: no thread, nothing to wait for);
 * answers the function that stops it, to call before `raw` closes. Stopping waits (≤ 5 s) for the
 * thread's connection to close, so that `raw`'s close, the last, checkpoints the log and removes
 * it, as a clean shutdown always did.
 */
export function checkpointOnAThread(
  raw: BetterSqlite3.Database,
  file: string,
  { restartPages = RESTART_PAGES, everyMs = EVERY_MS } = {},
): () => void {
  let stop: (() => void) | undefined
  const starting = setTimeout(() => {
    stop = startCheckpointer(raw, file, restartPages, everyMs)
  }, STARTS_AFTER_MS)
  starting.unref()
  return () => {
    clearTimeout(starting)
    stop?.()
  }
}

function startCheckpointer(
  raw: BetterSqlite3.Database,
  file: string,
  restartPages: number,
  everyMs: number,
): () => void {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const closed = new Int32Array(new SharedArrayBuffer(4))
  const workerData = { file, driver, everyMs, restartPages, closed: closed.buffer }
  const worker = new Worker(CHECKPOINTER, { eval: true, workerData })
  worker.unref()
  raw.pragma('wal_autocheckpoint = 0')
  let running = true
  worker.once('exit', () => {
    running = false
    if (raw.open) raw.pragma('wal_autocheckpoint = 1000')
  })
  worker.once('error', () => {}) // 'exit' follows and gives the checkpoints back to the commits
  return () => {
    if (!running) return
    worker.postMessage('stop')
    Atomics.wait(closed, 0, 0, 5000)
  }
}
