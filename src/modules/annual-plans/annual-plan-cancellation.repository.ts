import type { Insertable, Selectable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import type { AnnualPlanCancellationsTable } from '../../db/tables/annual-plan.js'
import { unrecordedCharge } from './annual-plan.repository.js'

// An annual plan's cancellation: its request and its confirmation
// (annual-plan-lifecycle.service.ts `cancelAnnualPlan` ends the plan).

export type CancellationRow = Selectable<AnnualPlanCancellationsTable>

/** Whether a card charge of the plan awaits the worker's recording (see unrecordedCharge). */
export async function hasUnrecordedCharge(db: Reader, planId: number): Promise<boolean> {
  const row = await db
    .selectFrom('annual_plans')
    .select('id')
    .where('id', '=', planId)
    .where(unrecordedCharge)
    .executeTakeFirst()
  return row !== undefined
}

/** The plan's cancellation; there is at most one (unique index on the plan). */
export async function findCancellation(db: Reader, planId: number): Promise<CancellationRow | undefined> {
  return db
    .selectFrom('annual_plan_cancellations')
    .selectAll()
    .where('annual_plan_id', '=', planId)
    .executeTakeFirst()
}

/**
 * Inserts unless a unique value is taken: the plan's (a concurrent request won; the caller reads
 * its row) or, very rarely, the protocol (the caller draws another).
 */
export async function insertCancellation(
  trx: Trx,
  values: Insertable<AnnualPlanCancellationsTable>,
): Promise<boolean> {
  const result = await trx
    .insertInto('annual_plan_cancellations')
    .values(values)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
}

/** The plan's resource changed without its own columns changing (its cancellation did). */
export async function touchAnnualPlan(trx: Trx, id: number, now: string): Promise<void> {
  await trx.updateTable('annual_plans').set({ updated_at: now }).where('id', '=', id).execute()
}

export async function markConfirmed(
  trx: Trx,
  id: number,
  confirmation: { confirmed_at: string; refund_amount: number; refund_due_date: string },
): Promise<void> {
  await trx
    .updateTable('annual_plan_cancellations')
    .set({ status: 'confirmed', ...confirmation })
    .where('id', '=', id)
    .where('status', '=', 'requested')
    .execute()
}

/**
 * Confirms the plan's cancellation as ended by a settled claim, without a refund: the open request,
 * if any, is confirmed with that reason, otherwise a confirmed one is written with `protocol`.
 */
export async function confirmClaimSettledCancellation(
  trx: Trx,
  planId: number,
  protocol: string,
  now: string,
): Promise<void> {
  const confirmation = {
    status: 'confirmed' as const,
    reason: 'claim_settled',
    confirmed_at: now,
    refund_amount: 0,
    refund_due_date: null,
  }
  const updated = await trx
    .updateTable('annual_plan_cancellations')
    .set(confirmation)
    .where('annual_plan_id', '=', planId)
    .where('status', '=', 'requested')
    .executeTakeFirst()
  if (Number(updated.numUpdatedRows) === 1) return
  await trx
    .insertInto('annual_plan_cancellations')
    .values({ annual_plan_id: planId, protocol, requested_at: now, ...confirmation })
    .execute()
}
