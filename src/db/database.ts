import { Kysely, PostgresAdapter, type QueryExecutorProvider } from 'kysely'
import type { Pool } from 'pg'
import type { Config } from '../config.js'
import { createPool, postgresDialect } from './postgres.js'
import { readsNow } from './prepared.js'
import type { Database, Db, Reader, Trx } from './schema.js'
import { sqliteDialect } from './sqlite.js'

export type { Database, Db, Reader, Trx }

const pools = new WeakMap<Db, Pool>()

export function createDb(config: Config['database']): Db {
  if (config.kind === 'sqlite') {
    const { dialect, readNow } = sqliteDialect(config.file)
    const db = new Kysely<Database>({ dialect }) as unknown as Db
    readsNow(db, readNow)
    return db
  }
  const pool = createPool(config)
  const db = new Kysely<Database>({ dialect: postgresDialect(pool) }) as unknown as Db
  pools.set(db, pool)
  return db
}

/** Connections of a PostgreSQL database's pool (for metrics); null on SQLite. */
export function poolUsage(db: Db): { total: number; idle: number; waiting: number } | null {
  const pool = pools.get(db)
  return pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null
}

export function isPostgres(db: QueryExecutorProvider): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}
