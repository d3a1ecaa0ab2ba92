import { PostgresDialect } from 'kysely'
import pg from 'pg'

const { types } = pg
const parseTimestamp = types.getTypeParser(types.builtins.TIMESTAMPTZ)

// One representation on both dialects: counts and ids as numbers, instants as UTC ISO strings,
// calendar dates as 'YYYY-MM-DD' strings (pg would turn them into local-time Date objects).
const typeParsers: Record<number, (value: string) => unknown> = {
  [types.builtins.INT8]: Number,
  [types.builtins.NUMERIC]: Number,
  [types.builtins.TIMESTAMPTZ]: (v) => (parseTimestamp(v) as Date).toISOString(),
  [types.builtins.DATE]: (v) => v,
}

export interface PostgresOptions {
  url: string
  poolMax: number
}

/**
 * The pool fails fast when PostgreSQL is unreachable (2 s to connect, 15 s per statement), so a
 * request answers 503 instead of hanging; idle connections are checked by the pool itself.
 */
export function createPool({ url, poolMax }: PostgresOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolMax,
    connectionTimeoutMillis: 2000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 15_000,
    query_timeout: 20_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        typeParsers[oid] ?? types.getTypeParser(oid, format)) as typeof types.getTypeParser,
    },
  })
  // A connection dropped while idle (PostgreSQL restarted) must not crash the process.
  pool.on('error', () => {})
  // Nor one dropped while checked out (pg emits 'error' with no listener): its queries fail (503).
  pool.on('connect', (client) => client.on('error', () => {}))
  return pool
}

export function postgresDialect(pool: pg.Pool): PostgresDialect {
  return new PostgresDialect({ pool })
}
