import type { Compilable, CompiledQuery, Kysely } from 'kysely'
import { directReader, isPostgres } from './database.js'

/** Stands for the query's n-th argument while the query is built once. */
class Argument {
  constructor(readonly index: number) {}
}

/**
 * A fixed-shape Kysely query built and compiled once per dialect, then run with new arguments:
 * Kysely builds and compiles a query on every call, ≈ 80 of the ≈ 100 µs a subscription view costs
 * (without it (a) took 2.2× the CPU a request, `npm run bench -- --against`, docs/benchmarks.md).
 * `build` receives placeholders instead of the arguments and must use each only as a value
 * (`where(col, '=', arg)`), never in JavaScript logic: it runs once per dialect. On SQLite, outside
 * a transaction, it runs on the connection at once (`readNow`, src/db/sqlite.ts).
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
      query = build(db, ...(args.map((_, index) => new Argument(index)) as A)).compile()
      compiled[dialect] = query
    }
    const parameters = query.parameters.map((p) => (p instanceof Argument ? args[p.index] : p))
    const rows = directReader(db)?.(query.sql, parameters)
    if (rows) return rows as R[]
    return (await db.executeQuery<R>({ ...query, parameters })).rows
  }
}
