import type BetterSqlite3 from 'better-sqlite3'
import type { Compilable, CompiledQuery, Insertable, Kysely, SqliteDatabase, SqliteStatement } from 'kysely'
import type { Database, Trx } from './schema.js'

// The fast path: every way the service runs SQL without Kysely's per-call building, compiling and
// executing, kept in this one file so that the rest of the code uses the query builder or the
// named functions below. Each piece stays because removing it cost more than 5 % of a scenario's
// CPU (docs/benchmarks.md, "Kept because").
//  - prepared(): a fixed-shape query built and compiled once, run with new arguments.
//  - insertRows() / insertReturningId(): inserts compiled once per shape.
//  - On SQLite, the connection's statement cache with generated row builders, and readNow: a
//    prepared read run on the connection at once, outside Kysely's executor.

/** Stands for a prepared query's n-th argument while its builder runs. */
class Argument {
  constructor(readonly index: number) {}

  // The builder runs once: an argument turned into a number or a string (compared, added,
  // formatted) would fix the query for the value it never had. The query must take it as a value.
  [Symbol.toPrimitive](): never {
    throw new PreparedMisuse(
      `argument ${this.index} is used as a JavaScript value (compared, computed or formatted)`,
    )
  }
  toJSON(): never {
    throw new PreparedMisuse(`argument ${this.index} is serialized as a JavaScript value`)
  }
}

/** A prepared builder that uses an argument in JavaScript rather than as a query value. */
export class PreparedMisuse extends Error {
  constructor(detail: string) {
    super(
      `A prepared() builder must pass its arguments to the query as values (where(col, '=', arg)), not use them in JavaScript: ${detail}`,
    )
    this.name = 'PreparedMisuse'
  }
}

// What a query runs on: a Db, a Trx or a Reader (schema.ts), of any database shape.
// biome-ignore lint/suspicious/noExplicitAny: any database shape
type AnyKysely = Pick<Kysely<any>, 'getExecutor' | 'executeQuery'>

/**
 * The compiled SQL differs by dialect: queries are compiled once per dialect adapter class
 * (SQLite's, PostgreSQL's), which every Kysely instance and transaction of that database shares.
 */
const dialectOf = (db: AnyKysely): object => db.getExecutor().adapter.constructor

/**
 * A fixed-shape Kysely query built and compiled once per dialect, then run with new arguments:
 * Kysely builds and compiles a query on every call, ≈ 80 of the ≈ 100 µs a subscription view costs.
 * `build` receives placeholders instead of the arguments and must use each only as a value
 * (`where(col, '=', arg)`, `limit(arg)`), never in JavaScript logic. `guardedCompile` checks that
 * at the first compile and throws otherwise; a call must pass the first call's number of
 * arguments, each a plain value. On SQLite, outside a transaction, it runs on the connection at
 * once (`readNow` below).
 */
export function prepared<A extends unknown[], R, D extends AnyKysely>(
  build: (db: D, ...args: A) => Compilable<R>,
): (db: D, ...args: A) => Promise<R[]> {
  const compiled = new Map<object, CompiledQuery<R>>()
  let arity: number | undefined
  return async (db, ...args) => {
    arity ??= args.length
    const dialect = dialectOf(db)
    let query = compiled.get(dialect)
    if (!query) {
      query = guardedCompile(build, db, arity)
      compiled.set(dialect, query)
    }
    const parameters = bind(query, arity, args)
    const rows = directReads.get(db)?.(query.sql, parameters)
    if (rows) return rows as R[]
    return (await db.executeQuery<R>({ ...query, parameters })).rows
  }
}

/**
 * Compiles `build` with placeholders, then again with every argument null, and throws
 * PreparedMisuse unless both give the same SQL with the arguments in the same places: a builder
 * that branches on an argument (`arg ? … : …`, `arg ?? 10`, `arg === null`) or reads it (`arg.length`)
 * compiles differently or throws; one that coerces it (`arg > 3`, `arg + 1`, `${arg}`) throws at once.
 */
function guardedCompile<A extends unknown[], R, D extends AnyKysely>(
  build: (db: D, ...args: A) => Compilable<R>,
  db: D,
  arity: number,
): CompiledQuery<R> {
  const placeholders = Array.from({ length: arity }, (_, index) => new Argument(index)) as A
  const query = compileWith(build, db, placeholders)
  const nulls = compileWith(build, db, Array.from({ length: arity }, () => null) as A)
  const differs =
    nulls.sql !== query.sql ||
    nulls.parameters.length !== query.parameters.length ||
    query.parameters.some((p, i) =>
      p instanceof Argument ? nulls.parameters[i] !== null : !samePlain(p, nulls.parameters[i]),
    )
  if (differs) throw new PreparedMisuse('the query changes with the arguments’ values')
  return query
}

function compileWith<A extends unknown[], R, D extends AnyKysely>(
  build: (db: D, ...args: A) => Compilable<R>,
  db: D,
  args: A,
): CompiledQuery<R> {
  try {
    return build(db, ...args).compile()
  } catch (error) {
    if (error instanceof PreparedMisuse) throw error
    throw new PreparedMisuse(`building the query with placeholders failed: ${(error as Error).message}`)
  }
}

/** Constants the builder wrote itself compare by value (a literal list is a new array each build). */
function samePlain(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && a !== null && JSON.stringify(a) === JSON.stringify(b))
}

/** The query's parameters with each placeholder replaced by its call's value. */
function bind(query: CompiledQuery, arity: number, args: readonly unknown[]): unknown[] {
  if (args.length !== arity)
    throw new PreparedMisuse(`called with ${args.length} arguments, compiled for ${arity}`)
  for (const arg of args) {
    // An array or object bound to one placeholder is not what the builder saw (`in (?)`).
    if (typeof arg === 'object' && arg !== null)
      throw new PreparedMisuse('an argument is an object or a list')
  }
  return query.parameters.map((p) => (p instanceof Argument ? args[p.index] : p))
}

// Compiled inserts, by dialect, table, columns, row count and returned column: without them a
// contract took 1.55x the CPU (--against a9367e9). Bounded: a handful of shapes (1 to 24 installments).
const compiledInserts = new Map<object, Map<string, CompiledQuery>>()
const MAX_COMPILED_INSERTS = 200

/**
 * Inserts rows that all have the same columns, the statement built and compiled once per shape:
 * Kysely rebuilds and recompiles an insert on every call, which for a contract's 24 installments
 * cost more than SQLite takes to write them (docs/benchmarks.md). Values only, no expressions;
 * rows of different shapes, or values that are expressions, go through Kysely as usual.
 */
export async function insertRows<T extends keyof Database & string>(
  db: Trx,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): Promise<void> {
  await insertCompiled(db, table, rows)
}

/** insertRows for one row, answering its generated `id`. */
export async function insertReturningId<T extends TablesWithId>(
  db: Trx,
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
  db: Trx,
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
  const dialect = dialectOf(db)
  let inserts = compiledInserts.get(dialect)
  if (!inserts) {
    inserts = new Map()
    compiledInserts.set(dialect, inserts)
  }
  const key = `${table}\t${columns.join(',')}\t${rows.length}\t${returning ?? ''}`
  let query = inserts.get(key)
  if (!query) {
    const placeholders = rows.map((_, r) =>
      Object.fromEntries(columns.map((column, c) => [column, new Argument(r * columns.length + c)])),
    )
    // biome-ignore lint/suspicious/noExplicitAny: placeholders stand for the typed rows
    const insert = db.insertInto(table).values(placeholders as any)
    query = (returning ? insert.returning(returning) : insert).compile() as CompiledQuery
    if (inserts.size >= MAX_COMPILED_INSERTS) inserts.clear()
    inserts.set(key, query)
  }
  // A plain loop: Node 20's flatMap took ≈ 60 µs for a contract's 24 installments, this ≈ 6.
  const values: unknown[] = []
  for (const row of rows) for (const column of columns) values.push((row as Record<string, unknown>)[column])
  const parameters = query.parameters.map((p) => (p instanceof Argument ? values[p.index] : p))
  return (await db.executeQuery({ ...query, parameters })).rows
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

/**
 * Runs a reading statement on the connection at once and answers its rows; undefined when the
 * statement writes, or while a transaction is open on the connection, whose statements only
 * Kysely may interleave with (it holds the one connection for the transaction until its end).
 */
export type ReadNow = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined

/** The direct reader of each SQLite database made by createDb; none for a transaction. */
const directReads = new WeakMap<AnyKysely, ReadNow>()

/** Lets prepared() reads on `db` (outside a transaction) run through `readNow`. */
export function readsNow(db: AnyKysely, readNow: ReadNow): void {
  directReads.set(db, readNow)
}

const STATEMENT_CACHE_SIZE = 500

interface Statement {
  stmt: BetterSqlite3.Statement
  /** For reading statements, which then run in raw mode: builds a row object from its values. */
  toRow?: (values: unknown[]) => unknown
}

/**
 * The connection as Kysely's SQLite dialect takes it, with its prepared statements cached by SQL
 * text (Kysely prepares every query anew) and booleans as 0/1 (SQLite has none and the driver
 * rejects them); and `readNow`, which skips Kysely's executor (connection queue, plugins, promises):
 * ≈ 4 µs of a ≈ 7 µs primary-key read.
 */
export function cachedStatements(
  raw: BetterSqlite3.Database,
  beforeClose?: () => void,
): { database: SqliteDatabase; readNow: ReadNow } {
  const cache = new Map<string, Statement>()
  const statement = (sql: string) => {
    let prepared = cache.get(sql)
    if (!prepared) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
      const stmt = raw.prepare(sql)
      const toRow = stmt.reader ? rowConstructor(stmt) : undefined
      if (toRow) stmt.raw(true)
      prepared = { stmt, toRow }
      cache.set(sql, prepared)
    }
    return prepared
  }
  const database: SqliteDatabase = {
    close: () => {
      beforeClose?.()
      raw.close()
    },
    prepare(sql: string): SqliteStatement {
      const prepared = statement(sql)
      const { stmt, toRow } = prepared
      return {
        reader: stmt.reader,
        all: (params) => allRows(prepared, params),
        run: (params) => stmt.run(...toSqlite(params)),
        iterate: toRow
          ? function* (params) {
              for (const values of stmt.iterate(...toSqlite(params))) yield toRow(values as unknown[])
            }
          : (params) => stmt.iterate(...toSqlite(params)),
      }
    },
  }
  // The cached statement itself: no wrapper built per call, as prepare() builds one for Kysely.
  const readNow: ReadNow = (sql, parameters) => {
    if (raw.inTransaction) return undefined
    const prepared = statement(sql)
    return prepared.stmt.reader ? allRows(prepared, parameters) : undefined
  }
  return { database, readNow }
}

/** A cached statement's rows: objects, built from raw arrays for reading statements. */
function allRows({ stmt, toRow }: Statement, params: ReadonlyArray<unknown>): unknown[] {
  const rows = stmt.all(...toSqlite(params))
  return toRow ? (rows as unknown[][]).map(toRow) : rows
}

/**
 * A row constructor compiled for a reading statement's columns. The driver builds each row object
 * through V8's C++ API, one property at a time; arrays (raw mode) turned into objects by a function
 * with the columns as literal keys take half the time (the driver's objects: (a) +14.5 % and
 * (b) +25 % CPU a request; a plain loop over the columns (b) +6.8 %). Undefined (the driver's
 * objects are kept) when the columns cannot be literal keys.
 */
function rowConstructor(stmt: BetterSqlite3.Statement): Statement['toRow'] {
  const columns = stmt.columns().map((c) => c.name)
  // Same semantics as the driver: a repeated name keeps the last value; `__proto__` would set
  // the prototype instead of a property, so such statements keep the driver's objects.
  if (columns.includes('__proto__')) return undefined
  const fields = columns.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')
  // The keys are JSON-escaped column names of the service's own SQL, not request data.
  return new Function('v', `return { ${fields} }`) as (values: unknown[]) => unknown
}

function toSqlite(params: ReadonlyArray<unknown>): unknown[] {
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p))
}
