import type { Trx } from '../../db/database.js'
import { AppError, GatewayModeError, NotFoundError, StateError } from '../../shared/errors.js'
import type { PartnerContext } from '../auth/principal.repository.js'
import { type InstallmentPayment, markInstallmentPaid } from './installment-payment.js'
import { PENDING_EXPIRY_DAYS, pastPendingExpiry } from './schedule.js'
import type { InstallmentRow } from './subscription.repository.js'
import { requireSubscriptionState } from './subscription.service.js'
import {
  cancelSubscriptionRow,
  cancelUnpaidInstallments,
  findInstallment,
  findInstallmentByNumber,
  findPartnerInstallment,
} from './subscription-payment.repository.js'

export const UNPAID = new Set(['pending', 'refused'])

export type PaidInstallmentRow = InstallmentRow & { status: 'paid'; paid_at: string }

const isPaid = (row: InstallmentRow | undefined): row is PaidInstallmentRow =>
  row?.status === 'paid' && row.paid_at !== null

export class PaymentInProgressError extends AppError {
  constructor() {
    super(409, 'A payment of this installment is in progress.')
  }
}

/**
 * Installment 1 of a subscription past its unpaid days (CONTRACT §9), which the worker cancels or
 * has yet to: refused, so that a late payment never activates it while the worker is behind.
 */
export class ExpiredUnpaidError extends StateError {
  constructor() {
    super(
      `The subscription expired unpaid: installment 1 was not paid within ${PENDING_EXPIRY_DAYS} days of contracting.`,
    )
  }
}

/** When a payment is made: the instant, and the zone whose calendar days the expiry counts. */
export interface PaymentMoment {
  now: Date
  timeZone: string
}

/**
 * Records that an external-gateway partner collected an installment. A repeat, or the loser of a
 * race, gets the installment as first paid: `markInstallmentPaid` lets exactly one caller pay it.
 */
export async function notifyInstallmentPayment(
  trx: Trx,
  partner: PartnerContext,
  subscriptionId: number,
  installmentId: number,
  { now, timeZone }: PaymentMoment,
): Promise<PaidInstallmentRow> {
  if (partner.gateway !== 'external') {
    throw new GatewayModeError(
      'This partner collects payments through the own gateway: use the payment call.',
    )
  }
  const installment = await findPartnerInstallment(trx, partner.partnerId, subscriptionId, installmentId)
  if (!installment) throw new NotFoundError('Installment')
  // Checked before the state rules: a paid installment stays paid whatever happened since.
  if (isPaid(installment)) return installment
  if (installment.subscription_status === 'canceled') throw new StateError('The subscription is canceled.')
  if (installment.status === 'canceled') throw new StateError('The installment is canceled.')
  if (installment.number > 1) {
    const first = await findInstallmentByNumber(trx, subscriptionId, 1)
    if (first?.status !== 'paid') throw new StateError('Installment 1 must be paid first.')
  } else if (pastPendingExpiry(installment.subscription_created_at, now, timeZone)) {
    throw new ExpiredUnpaidError()
  }
  const paying = installmentPayment(partner.partnerId, installment)
  await markInstallmentPaid(trx, paying, 'notification', null, now.toISOString())
  // Whether we paid it or a concurrent notification did, it is paid now: answer what is stored.
  const paid = await findInstallment(trx, installment.id)
  if (!isPaid(paid)) throw new StateError('The installment can no longer be paid.')
  return paid
}

/**
 * Cancels a subscription and its unpaid installments (paid ones stay paid). A card charge in
 * progress on one of them answers 409: it must finish first.
 */
export async function cancelSubscription(
  trx: Trx,
  partnerId: number,
  subscriptionId: number,
  reason: string | undefined,
  now: string,
): Promise<void> {
  const subscription = await requireSubscriptionState(trx, partnerId, subscriptionId)
  if (subscription.status === 'canceled') throw new StateError('The subscription is already canceled.')
  if ((await cancelUnpaidInstallments(trx, subscriptionId, now)) > 0) throw new PaymentInProgressError()
  if (!(await cancelSubscriptionRow(trx, subscriptionId, reason?.trim() || null, now))) {
    throw new StateError('The subscription is already canceled.')
  }
}

export function installmentPayment(partnerId: number, row: InstallmentRow): InstallmentPayment {
  return {
    partnerId,
    subscriptionId: row.subscription_id,
    installmentId: row.id,
    number: row.number,
    amount: row.amount,
  }
}
