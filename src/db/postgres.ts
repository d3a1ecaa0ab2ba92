import { createRequire } from 'node:module'
import { PostgresDialect } from 'kysely'
import type pg from 'pg'

// Loaded on first use: a SQLite deployment never pays for pg (≈ 16 MB of memory and 44 ms of
// start-up). pg is CommonJS, so require keeps createDb synchronous.
const require = createRequire(import.meta.url)

// One representation on both dialects: counts and ids as numbers, instants as UTC ISO strings,
// calendar dates as 'YYYY-MM-DD' strings (pg would turn them into local-time Date objects).
function typeParsers(types: typeof pg.types): Record<number, (value: string) => unknown> {
  const parseTimestamp = types.getTypeParser(types.builtins.TIMESTAMPTZ)
  return {
    [types.builtins.INT8]: Number,
    [types.builtins.NUMERIC]: Number,
    [types.builtins.TIMESTAMPTZ]: (v) => (parseTimestamp(v) as Date).toISOString(),
    [types.builtins.DATE]: (v) => v,
  }
}

// SQL texts run on most requests, registered by prepared(): each connection prepares them as
// named statements on first use, so PostgreSQL parses and plans them once per connection instead
// of on every call. Only fixed texts are registered, so the set per connection stays small.
const statementNames = new Map<string, string>()

/** Marks a fixed SQL text to be run as a named prepared statement on every connection. */
export function nameStatement(sql: string): void {
  if (!statementNames.has(sql)) statementNames.set(sql, `amparo_${statementNames.size + 1}`)
}

/**
 * Kysely runs every query as `client.query(text, values)`: a registered text is sent with its name
 * instead (pg prepares it on the connection's first use and then only binds and executes it).
 */
function runNamedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown
  client.query = ((text: unknown, ...rest: unknown[]) => {
    const name = typeof text === 'string' ? statementNames.get(text) : undefined
    if (name && rest.length === 1 && Array.isArray(rest[0])) return query({ name, text, values: rest[0] })
    return query(text, ...rest)
  }) as typeof client.query
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
  const { Pool, types } = require('pg') as typeof pg
  const parsers = typeParsers(types)
  const pool = new Pool({
    connectionString: url,
    max: poolMax,
    connectionTimeoutMillis: 2000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 15_000,
    query_timeout: 20_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        parsers[oid] ?? types.getTypeParser(oid, format)) as typeof types.getTypeParser,
    },
  })
  // A connection dropped while idle (PostgreSQL restarted) must not crash the process.
  pool.on('error', () => {})
  // Nor one dropped while checked out (pg emits 'error' with no listener): its queries fail (503).
  pool.on('connect', (client) => {
    client.on('error', () => {})
    runNamedStatements(client)
  })
  return pool
}

export function postgresDialect(pool: pg.Pool): PostgresDialect {
  return new PostgresDialect({ pool })
}
