import { claimLease, releaseLease, type Trx } from '../../db/database.js'
import type { PaymentChannel, PaymentOutcome } from '../../db/tables/payment.js'
import { recordPayment } from '../contracts/contract.repository.js'
import type { AnnualPlanRow } from './annual-plan.repository.js'

// An annual plan's payment: the claim a card charge holds and the ledger
// (annual-plan-lifecycle.service.ts `markAnnualPlanPaid` moves the plan to `paid`).

/**
 * Claims an unpaid plan for one card charge until `until`, in a transaction of its own (committed
 * before the gateway is called): of concurrent callers exactly one gets true, so a plan is never
 * charged twice. A claim older than `now` was abandoned (its process died mid-charge) and may be
 * taken over.
 */
export function claimForCharge(trx: Trx, id: number, now: string, until: string): Promise<boolean> {
  return claimLease(trx, 'annual_plans', id, { now, until }, (claim) =>
    claim.where('status', '=', 'awaiting_payment'),
  )
}

/** Ends our claim, and only ours: one that expired and was taken over stays with its new holder. */
export async function releaseClaim(trx: Trx, id: number, until: string): Promise<void> {
  await releaseLease(trx, 'annual_plans', id, until)
}

/** Appends the plan's premium to the ledger: one row per charge attempt or notification. */
export async function recordInLedger(
  trx: Trx,
  plan: AnnualPlanRow,
  entry: {
    route: PaymentChannel
    outcome: PaymentOutcome
    transactionId: string | null
    declineCode?: string
  },
  now: string,
): Promise<void> {
  await recordPayment(trx, {
    partner_id: plan.partner_id,
    subscription_id: null,
    installment_id: null,
    annual_plan_id: plan.id,
    amount: plan.premium,
    route: entry.route,
    outcome: entry.outcome,
    decline_code: entry.declineCode ?? null,
    transaction_id: entry.transactionId,
    created_at: now,
  })
}
