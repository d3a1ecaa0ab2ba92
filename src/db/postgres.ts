import { createRequire } from 'node:module'
import type pg from 'pg'
import { SchemaScopedPostgresDialect } from './postgres-dialect.js'

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

// Every query with parameters runs as a named statement: each connection parses and plans its text
// once, then only binds and executes it, which halved the CPU of the hot reads (docs/benchmarks.md).
// The service's texts are a few hundred at most (their shape depends on filters and row counts,
// never on values); past MAX_NAMED_STATEMENTS new texts run unnamed, so neither this map nor the
// statements each connection keeps can grow without bound. Texts without parameters (migrations,
// `begin`, `commit`) keep pg's simple protocol, which also allows several statements in one text.
// Nor is a text naming columns by `*` named: a column added by a migration while the process runs
// would change its result type, which PostgreSQL refuses for a named statement until it restarts.
const MAX_NAMED_STATEMENTS = 1000
const ALL_COLUMNS = /[\s.]\*/
const statementNames = new Map<string, string>()

function statementName(text: string): string | undefined {
  let name = statementNames.get(text)
  if (!name && statementNames.size < MAX_NAMED_STATEMENTS && !ALL_COLUMNS.test(text)) {
    name = `amparo_${statementNames.size + 1}`
    statementNames.set(text, name)
  }
  return name
}

/** Kysely runs every query as `client.query(text, values)`: sent here with its statement's name. */
function runNamedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown
  client.query = ((text: unknown, ...rest: unknown[]) => {
    const [values] = rest
    if (typeof text === 'string' && rest.length === 1 && Array.isArray(values) && values.length > 0) {
      const name = statementName(text)
      if (name) return query({ name, text, values })
    }
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

export function postgresDialect(pool: pg.Pool): SchemaScopedPostgresDialect {
  return new SchemaScopedPostgresDialect({ pool })
}
