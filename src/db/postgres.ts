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

export function postgresDialect({ url, poolMax }: PostgresOptions): PostgresDialect {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolMax,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        typeParsers[oid] ?? types.getTypeParser(oid, format)) as typeof types.getTypeParser,
    },
  })
  return new PostgresDialect({ pool })
}
