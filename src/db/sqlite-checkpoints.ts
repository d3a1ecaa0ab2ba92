import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type BetterSqlite3 from 'better-sqlite3'

// SQLite copies the write-ahead log into the database (a checkpoint) inside the commit that takes
// the log past 1,000 pages: copying and syncing stopped the event loop for 5–12 ms every ≈ 80 claim
// openings, and took ≈ 200 µs of each on average (docs/benchmarks.md, Optimisations kept). Here a
// thread with its own connection checkpoints the log every quarter second instead, beside the
// commits (PASSIVE: it never waits for a reader or writer), syncing the log, then the file. Should the thread stop, commits
// checkpoint again as before.
//
// The log starts over only when a commit begins with every page of it copied, and under a steady
// stream of commits the thread's copy is always a few commits behind, so the log grew without end.
// Once it holds `restartPages`, the thread says so, and the service's own connection copies what
// the thread's pass left, a few milliseconds of commits: its next commit then writes the log from
// the start. Not a RESTART checkpoint on the thread: a log started over by another connection
// empties the service's page cache (docs/decisions.md, Performance).

const EVERY_MS = 250
const STARTS_AFTER_MS = 1000
/** 16 MiB of 4 KiB pages. */
const RESTART_PAGES = 4096

// The thread's code, evaluated (the service runs as one bundled file); `driver` is better-sqlite3's path.
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file)
db.pragma('synchronous = FULL')
const timer = setInterval(() => {
  const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)')
  if (log >= workerData.restartPages) parentPort.postMessage('restart')
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
  // After a burst, a restarted log is cut back to twice the restart size rather than kept whole.
  raw.pragma(`journal_size_limit = ${2 * restartPages * Number(raw.pragma('page_size', { simple: true }))}`)
  let running = true
  worker.once('exit', () => {
    running = false
    if (raw.open) raw.pragma('wal_autocheckpoint = 1000')
  })
  worker.once('error', () => {}) // 'exit' follows and gives the checkpoints back to the commits
  worker.on('message', () => {
    // Between two transactions only: nothing commits while it copies, so it copies everything.
    // Should it fail (the connection busy with a streamed read), the thread asks again next pass.
    if (!raw.open || raw.inTransaction) return
    try {
      raw.pragma('wal_checkpoint(PASSIVE)')
    } catch {}
  })
  return () => {
    if (!running) return
    worker.postMessage('stop')
    Atomics.wait(closed, 0, 0, 5000)
  }
}
