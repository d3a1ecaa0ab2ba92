import type { Insertable, Selectable } from 'kysely'
import type { Db, Trx } from '../../db/database.js'
import type { AnnualPlanRow } from './annual-plan.repository.js'
import type { AnnualPlanCancellationsTable } from './annual-plan.table.js'

export type CancellationRow = Selectable<AnnualPlanCancellationsTable>

/** The plan's cancellation; there is at most one (unique index on the plan). */
export async function findCancellation(db: Db, planId: number): Promise<CancellationRow | undefined> {
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
): Promise<void> {
  await trx
    .insertInto('annual_plan_cancellations')
    .values(values)
    .onConflict((oc) => oc.doNothing())
    .execute()
}

/**
 * Cancels the plan unless it already is, or a card charge holds it (whose approval would then
 * find a canceled plan). Returns the row as the update left it: on PostgreSQL the update waits
 * for a concurrent payment to commit, so the refund is computed from the payment it made.
 */
export async function cancelPlan(trx: Trx, planId: number, now: string): Promise<AnnualPlanRow | undefined> {
  return trx
    .updateTable('annual_plans')
    .set({ status: 'canceled' })
    .where('id', '=', planId)
    .where('status', '!=', 'canceled')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .returningAll()
    .executeTakeFirst()
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
