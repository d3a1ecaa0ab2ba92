import { Kysely, PostgresAdapter, type Transaction } from 'kysely'
import type { Pool } from 'pg'
import type { Config } from '../config.js'
import { createPool, postgresDialect } from './postgres.js'
import { readsNow } from './prepared.js'
import type { Database } from './schema.js'
import { sqliteDialect } from './sqlite.js'

export type { Database }

export type Db = Kysely<Database>
export type Trx = Transaction<Database>

const pools = new WeakMap<Db, Pool>()

export function createDb(config: Config['database']): Db {
  if (config.kind === 'sqlite') {
    const { dialect, readNow } = sqliteDialect(config.file)
    const db = new Kysely<Database>({ dialect })
    readsNow(db, readNow)
    return db
  }
  const pool = createPool(config)
  const db = new Kysely<Database>({ dialect: postgresDialect(pool) })
  pools.set(db, pool)
  return db
}

/** Connections of a PostgreSQL database's pool (for metrics); null on SQLite. */
export function poolUsage(db: Db): { total: number; idle: number; waiting: number } | null {
  const pool = pools.get(db)
  return pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null
}

// biome-ignore lint/suspicious/noExplicitAny: works for typed and untyped instances
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}
