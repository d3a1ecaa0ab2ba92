import type { Trx } from '../../db/database.js'
import { recordPayment } from '../payments/payment.repository.js'
import type { PaymentRoute } from '../payments/payment.table.js'

/** An installment being paid: recorded as paid on approval, as declined otherwise. */
export interface InstallmentPayment {
  partnerId: number
  subscriptionId: number
  installmentId: number
  number: number
  amount: number
}

/**
 * Pays an installment once. The conditional update is the guard: of concurrent callers (threads,
 * processes, workers) exactly one moves it from pending/refused to paid and writes the ledger row;
 * the others get false and write nothing. Paying installment 1 activates the subscription.
 */
export async function markInstallmentPaid(
  trx: Trx,
  payment: InstallmentPayment,
  route: PaymentRoute,
  transactionId: string | null,
  now: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('installments')
    .set({ status: 'paid', paid_at: now, locked_until: null, next_attempt_on: null })
    .where('id', '=', payment.installmentId)
    .where('status', 'in', ['pending', 'refused'])
    .executeTakeFirst()
  if (Number(result.numUpdatedRows) === 0) return false
  await recordPayment(trx, {
    partner_id: payment.partnerId,
    subscription_id: payment.subscriptionId,
    installment_id: payment.installmentId,
    annual_plan_id: null,
    amount: payment.amount,
    route,
    outcome: route === 'notification' ? 'recorded' : 'approved',
    decline_code: null,
    transaction_id: transactionId,
    created_at: now,
  })
  if (payment.number === 1) {
    await trx
      .updateTable('subscriptions')
      .set({ status: 'pago' })
      .where('id', '=', payment.subscriptionId)
      .where('status', '=', 'pending')
      .execute()
  }
  return true
}

/** Records a declined charge in the ledger. */
export async function recordDecline(
  trx: Trx,
  payment: InstallmentPayment,
  route: PaymentRoute,
  declineCode: string,
  transactionId: string | null,
  now: string,
): Promise<void> {
  await recordPayment(trx, {
    partner_id: payment.partnerId,
    subscription_id: payment.subscriptionId,
    installment_id: payment.installmentId,
    annual_plan_id: null,
    amount: payment.amount,
    route,
    outcome: 'declined',
    decline_code: declineCode,
    transaction_id: transactionId,
    created_at: now,
  })
}
