import type { Compilable, CompiledQuery, Insertable, Kysely } from 'kysely'
import { type Database, directReader, isPostgres } from './database.js'

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

/** Runs a query compiled with placeholders, each replaced by its value. */
async function runWith<R>(
  // biome-ignore lint/suspicious/noExplicitAny: any database shape, as prepared() takes
  db: Kysely<any>,
  query: CompiledQuery<R>,
  values: readonly unknown[],
): Promise<R[]> {
  const parameters = query.parameters.map((p) => (p instanceof Argument ? values[p.index] : p))
  return (await db.executeQuery<R>({ ...query, parameters })).rows
}

// Compiled inserts, by dialect, table, columns, row count and returned column: without them a
// contract took 1.55x the CPU (--against a9367e9). Bounded: a handful of shapes (1 to 24 installments).
const compiledInserts = new Map<string, CompiledQuery>()
const MAX_COMPILED_INSERTS = 200

/**
 * Inserts rows that all have the same columns, the statement built and compiled once per shape:
 * Kysely rebuilds and recompiles an insert on every call, which for a contract's 24 installments
 * cost more than SQLite takes to write them (docs/benchmarks.md). Values only, no expressions;
 * rows of different shapes, or values that are expressions, go through Kysely as usual.
 */
export async function insertRows<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): Promise<void> {
  await insertCompiled(db, table, rows)
}

/** insertRows for one row, answering its generated `id`. */
export async function insertReturningId<T extends TablesWithId>(
  db: Kysely<Database>,
  table: T,
  row: Insertable<Database[T]>,
): Promise<number> {
  const [inserted] = await insertCompiled(db, table, [row], 'id')
  if (!inserted) throw new Error(`The insert into ${table} returned no id`)
  return (inserted as { id: number }).id
}

type TablesWithId = {
  [T in keyof Database]: Database[T] extends { id: unknown } ? T : never
}[keyof Database] &
  string

async function insertCompiled(
  db: Kysely<Database>,
  table: keyof Database & string,
  rows: readonly object[],
  returning?: 'id',
): Promise<unknown[]> {
  const columns = sameColumns(rows)
  if (!columns) {
    // biome-ignore lint/suspicious/noExplicitAny: the rows were typed by the exported functions
    const insert = db.insertInto(table).values(rows as any)
    return returning ? insert.returning(returning).execute() : insert.execute()
  }
  const key = `${isPostgres(db) ? 'postgres' : 'sqlite'}\t${table}\t${columns.join(',')}\t${rows.length}\t${returning ?? ''}`
  let query = compiledInserts.get(key)
  if (!query) {
    const placeholders = rows.map((_, r) =>
      Object.fromEntries(columns.map((column, c) => [column, new Argument(r * columns.length + c)])),
    )
    // biome-ignore lint/suspicious/noExplicitAny: placeholders stand for the typed rows
    const insert = db.insertInto(table).values(placeholders as any)
    query = (returning ? insert.returning(returning) : insert).compile() as CompiledQuery
    if (compiledInserts.size >= MAX_COMPILED_INSERTS) compiledInserts.clear()
    compiledInserts.set(key, query)
  }
  // A plain loop: Node 20's flatMap took ≈ 60 µs for a contract's 24 installments, this ≈ 6.
  const values: unknown[] = []
  for (const row of rows) for (const column of columns) values.push((row as Record<string, unknown>)[column])
  return runWith(db, query, values)
}

/**
 * The columns every row sets, in the first row's order, or undefined when the rows differ or a
 * value is not a plain value (an expression must be compiled with its row).
 */
function sameColumns(rows: readonly object[]): string[] | undefined {
  const [first] = rows
  if (!first) return undefined
  const columns = definedColumns(first)
  for (const row of rows) {
    const values = row as Record<string, unknown>
    let count = 0
    for (const key in values) {
      const value = values[key]
      if (value === undefined) continue
      if (typeof value === 'object' && value !== null) return undefined
      if (typeof value === 'function') return undefined
      count++
    }
    if (count !== columns.length || columns.some((c) => values[c] === undefined)) return undefined
  }
  return columns
}

/** The columns a row sets: its keys whose value is not undefined (Kysely leaves those out too). */
export function definedColumns<T extends object>(row: T): (keyof T & string)[] {
  return (Object.keys(row) as (keyof T & string)[]).filter((column) => row[column] !== undefined)
}
