import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely'
import { type Db, isPostgres, type Trx } from './database.js'

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
export function codePointLower(db: Db, column: string): RawBuilder<string> {
  return isPostgres(db) ? sql`lower(${sql.ref(column)}) collate "C"` : sql`lower(${sql.ref(column)})`
}

/**
 * `column` between `low` and `high` (integers). On PostgreSQL as a set of numbers: a range of
 * parameters is estimated at 0.5 % of the rows, so a prepared join filtered by it looked dearer as
 * a generic plan and was planned anew on every call; the same numbers as a set are estimated at a
 * few rows and the generic plan is kept.
 */
export function intRange(db: Db, column: string, low: number, high: number): RawBuilder<boolean> {
  return isPostgres(db)
    ? sql`${sql.ref(column)} = any(array(select generate_series(${low}::int, ${high}::int)))`
    : sql`${sql.ref(column)} between ${low} and ${high}`
}

/** Whether events are numbered after their commit by a sequencer (event.repository.ts): PostgreSQL. */
export const numbersEventsAfterCommit = (db: Db): boolean => isPostgres(db)

/** Whether a contract's writes go as one statement of data-modifying CTEs (PostgreSQL). */
export const writesContractInOneStatement = (trx: Trx): boolean => isPostgres(trx)
