import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import {
  AppError,
  GatewayModeError,
  NotFoundError,
  StateError,
  ValidationError,
} from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import type { PartnerContext } from '../auth/principal.repository.js'
import { type CardInput, checkCard } from '../payments/card.js'
import { cardGateway } from '../payments/gateway-mode.js'
import type { CardCharge, CardData, PaymentGateway } from '../payments/payment-gateway.js'
import { type InstallmentPayment, markInstallmentPaid, recordDecline } from './installment-payment.js'
import { PENDING_EXPIRY_DAYS, pastPendingExpiry } from './schedule.js'
import type { InstallmentRow } from './subscription.repository.js'
import {
  cancelSubscriptionRow,
  cancelUnpaidInstallments,
  claimInstallment,
  findInstallment,
  findInstallmentByNumber,
  findPartnerInstallment,
  refuseInstallment,
  releaseInstallment,
  storeCard,
} from './subscription-payment.repository.js'

/** How long a card charge may hold installment 1 before another try may take it over. */
export const CLAIM_SECONDS = 60

const UNPAID = new Set(['pending', 'refused'])

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

export interface CardPayment {
  gateway: PaymentGateway
  card: CardData
  installment: InstallmentPayment
}

/**
 * Everything a card payment needs, checked in the order a caller fixes them: the partner's mode,
 * the environment's gateway, the subscription, the card, then the subscription's state (pending,
 * and not past its unpaid days).
 */
export async function prepareCardPayment(
  db: Db,
  partner: PartnerContext,
  gateway: PaymentGateway | null,
  subscriptionId: number,
  creditCard: CardInput,
  { now, timeZone }: PaymentMoment,
): Promise<CardPayment> {
  const own = cardGateway(partner, gateway)
  const subscription = await db
    .selectFrom('subscriptions')
    .select(['id', 'status', 'created_at'])
    .where('partner_id', '=', partner.partnerId)
    .where('id', '=', subscriptionId)
    .executeTakeFirst()
  if (!subscription) throw new NotFoundError('Subscription')
  const check = checkCard(creditCard, formatDate(now, timeZone), 'MMYY')
  if (!check.ok) {
    const entries = Object.entries(check.errors).map(([key, message]) => [`creditCard.${key}`, [message]])
    throw new ValidationError(Object.fromEntries(entries))
  }
  if (subscription.status !== 'pending') {
    throw new StateError(`Only a pending subscription can be paid; this one is ${subscription.status}.`)
  }
  if (pastPendingExpiry(subscription.created_at, now, timeZone)) throw new ExpiredUnpaidError()
  const first = await findInstallmentByNumber(db, subscriptionId, 1)
  if (!first || !UNPAID.has(first.status)) throw new StateError('Installment 1 can no longer be paid.')
  return { gateway: own, card: check.card, installment: installmentPayment(partner.partnerId, first) }
}

/**
 * Runs `charge` while holding installment `id`, so that two card payments never both charge it.
 * The claim is committed before and released after, in every path but one: `charge` calls `keep`
 * when the card was charged but the charge could not be recorded, so that no retry charges the
 * card again while the claim lasts. Losing the claim answers 409.
 */
export async function withInstallmentClaim<T>(
  db: Db,
  id: number,
  now: Date,
  charge: (claim: { keep(): void }) => Promise<T>,
): Promise<T> {
  const until = new Date(now.getTime() + CLAIM_SECONDS * 1000).toISOString()
  const claimed = await retryingTransaction(db, (trx) => claimInstallment(trx, id, now.toISOString(), until))
  if (!claimed) {
    const installment = await findInstallment(db, id)
    if (!installment || !UNPAID.has(installment.status)) {
      throw new StateError('Installment 1 can no longer be paid.')
    }
    throw new PaymentInProgressError()
  }
  let kept = false
  try {
    return await charge({
      keep: () => {
        kept = true
      },
    })
  } finally {
    if (!kept) await retryingTransaction(db, (trx) => releaseInstallment(trx, id, until))
  }
}

/**
 * Writes a card charge's outcome to the ledger and the installment. Approved: the card's token,
 * brand and last four digits are kept for the recurrence and installment 1 is paid (activating
 * the subscription). Declined: installment 1 is `refused` and the subscription stays `pending`.
 */
export async function recordCardCharge(
  trx: Trx,
  installment: InstallmentPayment,
  charge: CardCharge,
  now: string,
): Promise<void> {
  const current = await findInstallment(trx, installment.installmentId)
  const { result } = charge
  if (!result.approved) {
    await recordDecline(trx, installment, 'card', result.declineCode, result.transactionId, now)
    if (current && UNPAID.has(current.status)) await refuseInstallment(trx, installment.installmentId)
    return
  }
  // Installment before subscription, the order every payment path locks them in (no deadlocks).
  const paid = await markInstallmentPaid(trx, installment, 'card', result.transactionId, now)
  // The claim keeps every other payment path away, so this means money was taken twice: a server
  // fault to investigate (and refund) with the gateway's reference, which the log keeps.
  if (!paid) {
    throw new Error(
      `Charge ${result.transactionId} approved for installment ${installment.installmentId}, which was already ${current?.status}`,
    )
  }
  await storeCard(trx, installment.subscriptionId, charge)
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
  const subscription = await trx
    .selectFrom('subscriptions')
    .select(['id', 'status'])
    .where('partner_id', '=', partnerId)
    .where('id', '=', subscriptionId)
    .executeTakeFirst()
  if (!subscription) throw new NotFoundError('Subscription')
  if (subscription.status === 'canceled') throw new StateError('The subscription is already canceled.')
  if ((await cancelUnpaidInstallments(trx, subscriptionId, now)) > 0) throw new PaymentInProgressError()
  if (!(await cancelSubscriptionRow(trx, subscriptionId, reason?.trim() || null, now))) {
    throw new StateError('The subscription is already canceled.')
  }
}

function installmentPayment(partnerId: number, row: InstallmentRow): InstallmentPayment {
  return {
    partnerId,
    subscriptionId: row.subscription_id,
    installmentId: row.id,
    number: row.number,
    amount: row.amount,
  }
}
