import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { type SqliteDatabase, SqliteDialect, type SqliteStatement } from 'kysely'
import { checkpointOnAThread } from './sqlite-checkpoints.js'

const STATEMENT_CACHE_SIZE = 500

/**
 * Runs a reading statement on the connection at once and answers its rows; undefined when the
 * statement writes, or while a transaction is open on the connection, whose statements only
 * Kysely may interleave with (it holds the one connection for the transaction until its end).
 */
export type ReadNow = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined

/**
 * better-sqlite3 behind Kysely, with lower() as on PostgreSQL and two adaptations:
 * - booleans become 0/1 on the way in (SQLite has no boolean type and the driver rejects them);
 * - prepared statements are cached by SQL text, since Kysely prepares every query anew.
 * Also `readNow`, for the hot reads of prepared(): it skips Kysely's executor (connection queue,
 * plugins, promises), ≈ 4 µs of a ≈ 7 µs primary-key read; with the row builders below, removing
 * both cost (a) 1.26× and (b) 1.4× the CPU a request (`npm run bench -- --against`, 2026-11-25).
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
  const { database, readNow } = adapt(raw, stopCheckpoints)
  return { dialect: new SqliteDialect({ database }), readNow }
}

interface Prepared {
  stmt: BetterSqlite3.Statement
  /** For reading statements, which then run in raw mode: builds a row object from its values. */
  toRow?: (values: unknown[]) => unknown
}

/** A cached statement's rows: objects, built from raw arrays for reading statements. */
function allRows({ stmt, toRow }: Prepared, params: ReadonlyArray<unknown>): unknown[] {
  const rows = stmt.all(...toSqlite(params))
  return toRow ? (rows as unknown[][]).map(toRow) : rows
}

function adapt(
  raw: BetterSqlite3.Database,
  beforeClose?: () => void,
): { database: SqliteDatabase; readNow: ReadNow } {
  const cache = new Map<string, Prepared>()
  const statement = (sql: string) => {
    let prepared = cache.get(sql)
    if (!prepared) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
      const stmt = raw.prepare(sql)
      const toRow = stmt.reader ? rowConstructor(stmt) : undefined
      if (toRow) stmt.raw(true)
      prepared = { stmt, toRow }
      cache.set(sql, prepared)
    }
    return prepared
  }
  const database: SqliteDatabase = {
    close: () => {
      beforeClose?.()
      raw.close()
    },
    prepare(sql: string): SqliteStatement {
      const prepared = statement(sql)
      const { stmt, toRow } = prepared
      return {
        reader: stmt.reader,
        all: (params) => allRows(prepared, params),
        run: (params) => stmt.run(...toSqlite(params)),
        iterate: toRow
          ? function* (params) {
              for (const values of stmt.iterate(...toSqlite(params))) yield toRow(values as unknown[])
            }
          : (params) => stmt.iterate(...toSqlite(params)),
      }
    },
  }
  // The cached statement itself: no wrapper built per call, as prepare() builds one for Kysely.
  const readNow: ReadNow = (sql, parameters) => {
    if (raw.inTransaction) return undefined
    const prepared = statement(sql)
    return prepared.stmt.reader ? allRows(prepared, parameters) : undefined
  }
  return { database, readNow }
}

/**
 * A row constructor compiled for a reading statement's columns. The driver builds each row object
 * through V8's C++ API, one property at a time; arrays (raw mode) turned into objects by a function
 * with the columns as literal keys take half the time. Measured (`--against`, 4 pairs, 2026-11-25):
 * the driver's objects instead cost (a) +14.5 % and (b) +25 % CPU a request, a plain loop over the
 * columns (b) +6.8 %. Undefined (the driver's objects are kept) when the columns cannot be literal keys.
 */
function rowConstructor(stmt: BetterSqlite3.Statement): Prepared['toRow'] {
  const columns = stmt.columns().map((c) => c.name)
  // Same semantics as the driver: a repeated name keeps the last value; `__proto__` would set
  // the prototype instead of a property, so such statements keep the driver's objects.
  if (columns.includes('__proto__')) return undefined
  const fields = columns.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')
  // The keys are JSON-escaped column names of the service's own SQL, not request data.
  return new Function('v', `return { ${fields} }`) as (values: unknown[]) => unknown
}

function toSqlite(params: ReadonlyArray<unknown>): unknown[] {
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p))
}
