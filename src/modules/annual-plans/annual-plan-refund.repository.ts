import type { Insertable, Selectable, Updateable } from 'kysely'
import { claimLease, notHeld, type Reader, releaseLease, type Trx } from '../../db/database.js'
import { inPartnerScope, type PartnerScope } from '../../db/partner-scope.js'
import type { AnnualPlanRefundsTable } from '../../db/tables/annual-plan.js'
import { recordPayment } from '../contracts/contract.repository.js'

export type RefundRow = Selectable<AnnualPlanRefundsTable>

export async function insertRefund(trx: Trx, values: Insertable<AnnualPlanRefundsTable>): Promise<void> {
  await trx
    .insertInto('annual_plan_refunds')
    .values(values)
    .onConflict((oc) => oc.column('annual_plan_id').doNothing())
    .execute()
}

export async function findRefundOfPlan(db: Reader, planId: number): Promise<RefundRow | undefined> {
  return db
    .selectFrom('annual_plan_refunds')
    .selectAll()
    .where('annual_plan_id', '=', planId)
    .executeTakeFirst()
}

/** Pending refunds whose attempt time has come and that no worker holds, by id from `after`. */
export async function findDueRefunds(
  db: Reader,
  { now, after, limit, scope }: { now: string; after: number; limit: number; scope?: PartnerScope },
): Promise<number[]> {
  const rows = await db
    .selectFrom('annual_plan_refunds')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where(notHeld(now))
    .where('id', '>', after)
    .where(inPartnerScope(scope, 'partner_id'))
    .orderBy('id')
    .limit(limit)
    .execute()
  return rows.map((row) => row.id)
}

/**
 * Holds a due refund until `until` for one gateway call, in a transaction of its own (committed
 * before the call): of concurrent workers exactly one gets the row.
 */
export async function claimRefund(
  trx: Trx,
  id: number,
  now: string,
  until: string,
): Promise<RefundRow | undefined> {
  const claimed = await claimLease(trx, 'annual_plan_refunds', id, { now, until }, (claim) =>
    claim.where('status', '=', 'pending').where('next_attempt_at', '<=', now),
  )
  if (!claimed) return undefined
  return trx.selectFrom('annual_plan_refunds').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Writes an attempt's outcome and ends the claim, if the claim `until` is still this attempt's. */
export async function settleRefund(
  trx: Trx,
  id: number,
  until: string,
  changes: Updateable<AnnualPlanRefundsTable>,
): Promise<boolean> {
  return releaseLease(trx, 'annual_plan_refunds', id, until, (eb) => ({
    ...changes,
    attempts: eb('attempts', '+', 1),
  }))
}

/** A `failed` refund, pending again; false when the plan's refund is not failed. */
export async function requeueRefund(
  trx: Trx,
  id: number,
  { now, giveUpAt }: { now: string; giveUpAt: string },
): Promise<boolean> {
  const result = await trx
    .updateTable('annual_plan_refunds')
    .set({ status: 'pending', next_attempt_at: now, give_up_at: giveUpAt, locked_until: null })
    .where('id', '=', id)
    .where('status', '=', 'failed')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** A `succeeded` refund of this gateway refund id made `failed`; undefined when there is none. */
export async function failSucceededRefund(
  trx: Trx,
  gatewayRefundId: string,
  lastError: string,
): Promise<RefundRow | undefined> {
  return trx
    .updateTable('annual_plan_refunds')
    .set({ status: 'failed', last_error: lastError, refunded_at: null, locked_until: null })
    .where('gateway_refund_id', '=', gatewayRefundId)
    .where('status', '=', 'succeeded')
    .returningAll()
    .executeTakeFirst()
}

/** Appends a refund attempt to the payments ledger. */
export async function recordInLedger(
  trx: Trx,
  refund: RefundRow,
  entry: { outcome: 'refunded' | 'failed'; transactionId: string | null; declineCode?: string },
  now: string,
): Promise<void> {
  await recordPayment(trx, {
    partner_id: refund.partner_id,
    subscription_id: null,
    installment_id: null,
    annual_plan_id: refund.annual_plan_id,
    amount: refund.amount,
    route: 'refund',
    outcome: entry.outcome,
    decline_code: entry.declineCode ?? null,
    transaction_id: entry.transactionId,
    created_at: now,
  })
}
