import type { Trx } from '../../db/database.js'
import type { Moment } from '../../shared/clock.js'
import { StateError } from '../../shared/errors.js'
import { recordPayment } from '../payments/payment.repository.js'
import type { PaymentOutcome, PaymentRoute } from '../payments/payment.table.js'
import type { AnnualPlanRow } from './annual-plan.repository.js'
import type { Payment } from './annual-plan-payment.repository.js'
import { coverageWindow, statusAt } from './coverage.js'
import { policyNumber } from './policy-number.js'

// What both payment routes (own gateway's card, external gateway's notification) share.

/** Only a plan awaiting payment (by the clock) can be paid; checked before anything is charged. */
export function assertAwaitingPayment(plan: AnnualPlanRow, now: string): void {
  const status = statusAt(plan, now)
  if (status !== 'awaiting_payment') {
    throw new StateError(
      `The annual plan is ${status.replace('_', ' ')}: only a plan awaiting payment can be paid.`,
    )
  }
}

/** A payment confirmed at `now`: cover from the next local midnight, and the plan's policy number. */
export function paymentAt(plan: AnnualPlanRow, { now, timeZone }: Moment): Payment {
  const { startsAt, endsAt } = coverageWindow(now, timeZone)
  return { paidAt: now, startsAt, endsAt, policyNumber: policyNumber(plan.id, now, timeZone) }
}

/** Appends the plan's premium to the ledger: one row per charge attempt or notification. */
export async function recordInLedger(
  trx: Trx,
  plan: AnnualPlanRow,
  entry: { route: PaymentRoute; outcome: PaymentOutcome; transactionId: string | null; declineCode?: string },
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
