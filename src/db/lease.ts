import {
  type ExpressionBuilder,
  type RawBuilder,
  type SqlBool,
  sql,
  type UpdateObject,
  type UpdateQueryBuilder,
  type UpdateResult,
} from 'kysely'
import type { Database, Trx } from './database.js'

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
