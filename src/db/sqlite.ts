import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { SqliteDialect } from 'kysely'
import { cachedStatements, type ReadNow } from './prepared.js'
import { checkpointOnAThread } from './sqlite-checkpoints.js'
import { type LogSync, logSync } from './sqlite-log-sync.js'

/**
 * better-sqlite3 behind Kysely, with lower() as on PostgreSQL, its statements cached and its rows
 * built as prepared.ts does (`cachedStatements`); also `readNow`, for the hot reads of prepared(),
 * and `syncLog`, which group commit awaits after each commit (none in memory).
 */
export function sqliteDialect(file: string): {
  dialect: SqliteDialect
  readNow: ReadNow
  syncLog: LogSync | undefined
} {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const raw = new BetterSqlite3(file)
  raw.pragma('journal_mode = WAL')
  // Every commit is on disk before its answer: a payment answered as paid survives a power loss.
  // The log is synced off the event loop after each group's commit (sqlite-log-sync.ts), so the
  // connection itself does not sync at commit; NORMAL still syncs around checkpoints, which keeps
  // the file whole (docs/decisions.md, Performance).
  raw.pragma(`synchronous = ${file === ':memory:' ? 'FULL' : 'NORMAL'}`)
  raw.pragma('foreign_keys = ON')
  // No busy handler: it sleeps on the event loop. A write refused for another connection's lock is
  // retried asynchronously (transaction.ts); readers never wait for it in WAL mode.
  raw.pragma('busy_timeout = 0')
  const stopCheckpoints = file === ':memory:' ? undefined : checkpointOnAThread(raw, file)
  const syncLog = file === ':memory:' ? undefined : logSync(file)
  // SQLite's own lower() changes ASCII letters only, so a case-insensitive name filter missed `É`
  // for `é` where PostgreSQL (UTF-8) matched it. No index is built on lower(): replacing it
  // changes no stored data.
  raw.function('lower', { deterministic: true }, (text: unknown) =>
    text === null ? null : String(text).toLowerCase(),
  )
  const { database, readNow } = cachedStatements(raw, () => {
    stopCheckpoints?.()
    syncLog?.close()
  })
  return { dialect: new SqliteDialect({ database }), readNow, syncLog }
}
