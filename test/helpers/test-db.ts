import { randomBytes } from 'node:crypto'
import type { KyselyPlugin } from 'kysely'
import { inject } from 'vitest'
import { type Config, loadConfig } from '../../src/config.js'
import { createDb, type Db, type Trx } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { adminQuery, databaseUrl } from './global-setup.js'

export const TEST_JWT_KEYS = {
  current: { kid: 'k2', secret: 'test-signing-key-two-0123456789abcdef' },
  previous: { kid: 'k1', secret: 'test-signing-key-one-0123456789abcdef' },
}

export interface TestDatabase {
  /** Environment that points a process or `loadConfig` at this database. */
  env: Record<string, string>
  config: Readonly<Config>
  db: Db
  drop(): Promise<void>
}

/**
 * A fresh, migrated database for one test file: SQLite in memory (or in a file, for tests
 * that need a second connection), or, when DATABASE_URL is set, a new PostgreSQL database
 * beside it, dropped afterwards. `env` adds or overrides settings (`AMPARO_PUBLIC_URL`, …).
 */
export async function createTestDatabase(
  options: { sqliteFile?: string; env?: Record<string, string> } = {},
): Promise<TestDatabase> {
  const env: Record<string, string> = {
    AMPARO_JWT_KEYS: [TEST_JWT_KEYS.current, TEST_JWT_KEYS.previous]
      .map((k) => `${k.kid}=${k.secret}`)
      .join(','),
    LOG_LEVEL: 'silent',
    ...options.env,
  }
  const url = process.env.DATABASE_URL
  let dropDatabase = async () => {}
  if (url) {
    // A copy of the template the run migrated once (test/helpers/global-setup.ts): 0.1 s, where
    // migrating a schema of its own took 1.5 s a file.
    const template = inject('pgTemplate')
    const name = `${template.replace(/_template$/, '')}_${randomBytes(6).toString('hex')}`
    await adminQuery(url, `create database ${name} template ${template}`)
    env.DATABASE_URL = databaseUrl(url, name)
    dropDatabase = () => adminQuery(url, `drop database if exists ${name} with (force)`)
  } else {
    env.AMPARO_SQLITE_FILE = options.sqliteFile ?? ':memory:'
  }
  const config = loadConfig(env)
  const db = createDb(config.database)
  if (!url) await migrateToLatest(db)
  return {
    env,
    config,
    db,
    async drop() {
      await db.destroy()
      await dropDatabase()
    },
  }
}

/**
 * Yields to the event loop after every statement, as a database across a network does: without
 * it, SQLite's synchronous driver would run each request's transaction to its end before the next
 * request starts, and the two connections would never meet inside a transaction.
 */
export const interleaving: KyselyPlugin = {
  transformQuery: (args) => args.node,
  transformResult: async (args) => {
    await new Promise((resolve) => setImmediate(resolve))
    return args.result
  },
}

/** The database seen through `plugin` (fault injection, interleaving): still a `Db` the app opens transactions on. */
export const withPlugin = (db: Db, plugin: KyselyPlugin): Db => db.withPlugin(plugin)

/**
 * A plain transaction, neither retried nor grouped with the turn's others, for a test that needs
 * one held open beside another: everything else writes through `retryingTransaction`.
 */
export function plainTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return db.transaction().execute((trx) => work(trx as Trx))
}
