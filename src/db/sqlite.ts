import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { SqliteDialect } from 'kysely'
import { cachedStatements, type ReadNow } from './prepared.js'
import { checkpointOnAThread } from './sqlite-checkpoints.js'

/**
 * better-sqlite3 behind Kysely, with lower() as on PostgreSQL, its statements cached and its rows
 * built as prepared.ts does (`cachedStatements`); also `readNow`, for the hot reads of prepared().
 */
export function sqliteDialect(file: string): { dialect: SqliteDialect; readNow: ReadNow } {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const raw = new BetterSqlite3(file)
  raw.pragma('journal_mode = WAL')
  // Every commit is on disk before its answer: a payment answered as paid survives a power loss
  // (NORMAL could drop the last commits). Group commit makes it one sync a turn (docs/decisions.md).
  raw.pragma('synchronous = FULL')
  raw.pragma('foreign_keys = ON')
  // No busy handler: it sleeps on the event loop. A write refused for another connection's lock is
  // retried asynchronously (transaction.ts); readers never wait for it in WAL mode.
  raw.pragma('busy_timeout = 0')
  const stopCheckpoints = file === ':memory:' ? undefined : checkpointOnAThread(raw, file)
  // SQLite's own lower() changes ASCII letters only, so a case-insensitive name filter missed `É`
  // for `é` where PostgreSQL (UTF-8) matched it. No index is built on lower(): replacing it
  // changes no stored data.
  raw.function('lower', { deterministic: true }, (text: unknown) =>
    text === null ? null : String(text).toLowerCase(),
  )
  const { database, readNow } = cachedStatements(raw, stopCheckpoints)
  return { dialect: new SqliteDialect({ database }), readNow }
}
