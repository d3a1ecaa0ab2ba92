import type { Compilable, CompiledQuery, Kysely } from 'kysely'
import { isPostgres } from './database.js'
import { nameStatement } from './postgres.js'

/** Stands for the query's n-th argument while the query is built once. */
class Argument {
  constructor(readonly index: number) {}
}

/**
 * A fixed-shape query built and compiled to SQL once per dialect, then run with new arguments.
 *
 * Kysely builds an operation tree and compiles it to SQL on every call, which costs several times
 * what SQLite takes to answer a primary-key lookup (docs/benchmarks.md). `build` receives
 * placeholders instead of the arguments and must use each only as a value (`where(col, '=', arg)`),
 * never in JavaScript logic: it runs once, the first time each dialect is seen. Transactions share
 * the compiled query of their database, since only the dialect shapes the SQL. On PostgreSQL the
 * text also runs as a named prepared statement (see nameStatement()), planned once per connection.
 */
// biome-ignore lint/suspicious/noExplicitAny: a query builder takes any database shape
export function prepared<A extends unknown[], R, D extends Kysely<any>>(
  build: (db: D, ...args: A) => Compilable<R>,
): (db: D, ...args: A) => Promise<R[]> {
  const compiled: { sqlite?: CompiledQuery<R>; postgres?: CompiledQuery<R> } = {}
  return async (db, ...args) => {
    const dialect = isPostgres(db) ? 'postgres' : 'sqlite'
    let query = compiled[dialect]
    if (!query) {
      const placeholders = args.map((_, index) => new Argument(index)) as A
      query = build(db, ...placeholders).compile()
      compiled[dialect] = query
      if (dialect === 'postgres') nameStatement(query.sql)
    }
    const parameters = query.parameters.map((p) => (p instanceof Argument ? args[p.index] : p))
    const { rows } = await db.executeQuery<R>({ ...query, parameters })
    return rows
  }
}
