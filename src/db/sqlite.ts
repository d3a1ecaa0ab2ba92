import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { type SqliteDatabase, SqliteDialect, type SqliteStatement } from 'kysely'

const STATEMENT_CACHE_SIZE = 500

/**
 * better-sqlite3 behind Kysely, with lower() as on PostgreSQL and two adaptations:
 * - booleans become 0/1 on the way in (SQLite has no boolean type and the driver rejects them);
 * - statements are cached by SQL text, since Kysely prepares every query anew.
 */
export function sqliteDialect(file: string): SqliteDialect {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const raw = new BetterSqlite3(file)
  raw.pragma('journal_mode = WAL')
  raw.pragma('synchronous = NORMAL')
  raw.pragma('foreign_keys = ON')
  raw.pragma('busy_timeout = 5000')
  // SQLite's own lower() changes ASCII letters only, so a case-insensitive name filter missed `É`
  // for `é` where PostgreSQL (UTF-8) matched it. No index is built on lower(): replacing it
  // changes no stored data.
  raw.function('lower', { deterministic: true }, (text: unknown) =>
    text === null ? null : String(text).toLowerCase(),
  )
  return new SqliteDialect({ database: adapt(raw) })
}

function adapt(raw: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>()
  const statement = (sql: string) => {
    let stmt = cache.get(sql)
    if (!stmt) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
      stmt = raw.prepare(sql)
      cache.set(sql, stmt)
    }
    return stmt
  }
  return {
    close: () => raw.close(),
    prepare(sql: string): SqliteStatement {
      const stmt = statement(sql)
      return {
        reader: stmt.reader,
        all: (params) => stmt.all(...toSqlite(params)),
        run: (params) => stmt.run(...toSqlite(params)),
        iterate: (params) => stmt.iterate(...toSqlite(params)),
      }
    },
  }
}

function toSqlite(params: ReadonlyArray<unknown>): unknown[] {
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p))
}
