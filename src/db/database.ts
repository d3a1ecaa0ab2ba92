import {
  type ExpressionBuilder,
  Kysely,
  PostgresAdapter,
  type QueryExecutorProvider,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
  type UpdateObject,
  type UpdateQueryBuilder,
  type UpdateResult,
} from 'kysely'
import type { Pool } from 'pg'
import type { Config } from '../config.js'
import { createPool, postgresDialect } from './postgres.js'
import { readsNow } from './prepared.js'
import type { Database, Db, Reader, Trx } from './schema.js'
import { sqliteDialect } from './sqlite.js'
import { syncsLogOnCommit } from './sqlite-log-sync.js'

export type { Database, Db, Reader, Trx }

const pools = new WeakMap<Db, Pool>()

export function createDb(config: Config['database']): Db {
  if (config.kind === 'sqlite') {
    const { dialect, readNow, syncLog } = sqliteDialect(config.file)
    const db = new Kysely<Database>({ dialect }) as unknown as Db
    readsNow(db, readNow)
    if (syncLog) syncsLogOnCommit(db, syncLog)
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

// The SQL that differs between the two databases, named once so that repositories hold no dialect
// branch. Row locks exist on PostgreSQL only: on SQLite one writer at a time holds the whole
// database from its first write to its commit, so a write transaction is already alone.

type LockTarget<DB, TB extends keyof DB, O> = Parameters<SelectQueryBuilder<DB, TB, O>['forUpdate']>[0]

/** The rows read stay locked until the caller commits (PostgreSQL `for update`; SQLite: as is). */
export function lockingRows<DB, TB extends keyof DB, O>(
  trx: Trx,
  query: SelectQueryBuilder<DB, TB, O>,
  of?: LockTarget<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return isPostgres(trx) ? query.forUpdate(of) : query
}

/**
 * Only the rows no other transaction holds, locked until commit (PostgreSQL `for update skip
 * locked`: a concurrent worker takes other rows instead of waiting; SQLite: as is).
 */
export function skippingLockedRows<DB, TB extends keyof DB, O>(
  trx: Trx,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return isPostgres(trx) ? query.forUpdate().skipLocked() : query
}

/**
 * A name's sort key: case-insensitive and in code point order on both databases (PostgreSQL's
 * default collation may be linguistic; SQLite has none, and its lower() is JavaScript's, see
 * sqlite.ts).
 */
export function codePointLower(db: Reader, column: string): RawBuilder<string> {
  return isPostgres(db) ? sql`lower(${sql.ref(column)}) collate "C"` : sql`lower(${sql.ref(column)})`
}

/**
 * `column` between `low` and `high` (integers). On PostgreSQL as a set of numbers: a range of
 * parameters is estimated at 0.5 % of the rows, so a prepared join filtered by it looked dearer as
 * a generic plan and was planned anew on every call; the same numbers as a set are estimated at a
 * few rows and the generic plan is kept.
 */
export function intRange(db: Reader, column: string, low: number, high: number): RawBuilder<boolean> {
  return isPostgres(db)
    ? sql`${sql.ref(column)} = any(array(select generate_series(${low}::int, ${high}::int)))`
    : sql`${sql.ref(column)} between ${low} and ${high}`
}

/**
 * The id of an event's object (`data.id`), as the expression index `events_object_id` of migration
 * 0018 holds it: text on PostgreSQL, the JSON number on SQLite. A query must spell the expression
 * as the index does for the index to serve it.
 */
export function eventObjectId(db: Reader): RawBuilder<unknown> {
  return isPostgres(db) ? sql`(data::jsonb ->> 'id')` : sql`json_extract(data, '$.id')`
}

/** The event's object is one of these ids (not empty), compared as the index holds them. */
export function eventObjectIdIn(db: Reader, ids: readonly number[]): RawBuilder<boolean> {
  const values = isPostgres(db) ? ids.map(String) : ids
  return sql<boolean>`${eventObjectId(db)} in (${sql.join(values)})`
}

/** Whether events are numbered after their commit by a sequencer (event.repository.ts): PostgreSQL. */
export const numbersEventsAfterCommit = (db: Reader): boolean => isPostgres(db)

/** Whether a contract's writes go as one statement of data-modifying CTEs (PostgreSQL). */
export const writesContractInOneStatement = (trx: Trx): boolean => isPostgres(trx)

/** The page cache a document's bytes are written with on SQLite (KiB, as `cache_size` takes it negated). */
const BLOB_WRITE_CACHE_KIB = 1024

/**
 * Runs `write` (a large blob's insert) with the connection's page cache shrunk to 1 MiB on SQLite,
 * then restores its size. Every page written stays in that cache until it is full, so a 10 MiB
 * document's pages came to sit in the 16 MB cache beside the driver's two copies of the bytes (see
 * docs/benchmarks.md, Claims: uploads); past the small cache they go to the WAL at once. PostgreSQL
 * keeps no such cache in the process: `write` runs as is.
 */
export async function withSmallPageCache<T>(trx: Trx, write: () => Promise<T>): Promise<T> {
  if (isPostgres(trx)) return write()
  const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(trx)
  const size = Number(rows[0]?.cache_size)
  await sql`pragma cache_size = ${sql.lit(-BLOB_WRITE_CACHE_KIB)}`.execute(trx)
  try {
    return await write()
  } finally {
    await sql`pragma cache_size = ${sql.lit(size)}`.execute(trx)
  }
}

// Leases: a row (installment, annual plan, refund) held by one gateway call while it is in flight.

/**
 * The row (installment or annual plan) is not held by a charge in progress: never claimed, or its
 * claim has run out (the process that held it died mid-charge). The one condition every claim,
 * cancellation and expiry uses.
 */
export function notHeld(now: string, column = 'locked_until'): RawBuilder<SqlBool> {
  const lockedUntil = sql.ref(column)
  return sql<SqlBool>`(${lockedUntil} is null or ${lockedUntil} < ${now})`
}

/** The tables whose rows a gateway call holds while it is in flight (`locked_until`). */
export type Leased = 'installments' | 'annual_plans' | 'annual_plan_refunds'

/** A claim of a row of one of those tables, as the caller narrows it. */
export type LeaseClaim = UpdateQueryBuilder<Database, Leased, Leased, UpdateResult>

/**
 * Holds row `id` of `table` for one gateway call until `until`, if no call holds it and `still` (the
 * caller's conditions: still payable, still due) holds. Runs in a transaction of its own, committed
 * before the call: of concurrent callers exactly one gets true.
 */
export async function claimLease(
  trx: Trx,
  table: Leased,
  id: number,
  { now, until }: { now: string; until: string },
  still: (claim: LeaseClaim) => LeaseClaim = (claim) => claim,
): Promise<boolean> {
  const claim = trx.updateTable(table).set({ locked_until: until }).where('id', '=', id).where(notHeld(now))
  const result = await still(claim).executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/**
 * Ends the claim `until` on row `id` of `table`, and only that one (a claim that ran out and was
 * taken over stays with its new holder), writing `changes` in the same update. False when the
 * claim was no longer this one's.
 */
export async function releaseLease(
  trx: Trx,
  table: Leased,
  id: number,
  until: string,
  changes: (eb: ExpressionBuilder<Database, Leased>) => UpdateObject<Database, Leased> = () => ({}),
): Promise<boolean> {
  const result = await trx
    .updateTable(table)
    .set((eb) => ({ ...changes(eb), locked_until: null }))
    .where('id', '=', id)
    .where('locked_until', '=', until)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
