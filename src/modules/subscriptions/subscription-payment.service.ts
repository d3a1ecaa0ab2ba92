import type { Db, Trx } from '../../db/database.js'
import { GatewayModeError, NotFoundError, StateError } from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import type { PartnerContext } from '../auth/partner-context.js'
import { type CardInput, CardDeclinedError, requireCard } from '../payments/card.js'
import { cardGateway, type PaymentGateway } from '../payments/payment-gateway.js'
import { type CardPaymentContext, chargeOnce, PaymentInProgressError } from '../payments/payment.service.js'
import { PENDING_EXPIRY_DAYS, pastPendingExpiry, retryOn } from './schedule.js'
import type { InstallmentRow } from './subscription.repository.js'
import { requireSubscriptionState } from './subscription.service.js'
import { cancelSubscription } from './subscription-cancellation.service.js'
import {
  claimDueInstallment,
  claimInstallment,
  type DueInstallment,
  findInstallment,
  findInstallmentByNumber,
  findPartnerInstallment,
  type InstallmentPayment,
  markInstallmentPaid,
  recordDecline,
  recordFailedAttempt,
  refuseFirstInstallment,
  releaseInstallment,
  storeCard,
} from './subscription-payment.repository.js'

const UNPAID = new Set(['pending', 'refused'])

export type PaidInstallmentRow = InstallmentRow & { status: 'paid'; paid_at: string }

const isPaid = (row: InstallmentRow | undefined): row is PaidInstallmentRow =>
  row?.status === 'paid' && row.paid_at !== null

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

const paymentOf = (partnerId: number, row: InstallmentRow): InstallmentPayment => ({
  partnerId,
  subscriptionId: row.subscription_id,
  installmentId: row.id,
  number: row.number,
  amount: row.amount,
})

/**
 * Records that an external-gateway partner collected an installment. A repeat, or the loser of a
 * race, gets the installment as first paid: `markInstallmentPaid` lets exactly one caller pay it.
 */
export async function notifyInstallmentPayment(
  trx: Trx,
  partner: PartnerContext,
  subscriptionId: number,
  installmentId: number,
  { now, timeZone }: { now: Date; timeZone: string },
): Promise<PaidInstallmentRow> {
  const installment = await findPartnerInstallment(trx, partner.partnerId, subscriptionId, installmentId)
  if (!installment) throw new NotFoundError('Installment')
  if (partner.gateway !== 'external') {
    throw new GatewayModeError(
      'This partner collects payments through the own gateway: use the payment call.',
    )
  }
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
  await markInstallmentPaid(
    trx,
    paymentOf(partner.partnerId, installment),
    'notification',
    null,
    now.toISOString(),
  )
  // Whether we paid it or a concurrent notification did, it is paid now: answer what is stored.
  const paid = await findInstallment(trx, installment.id)
  if (!isPaid(paid)) throw new StateError('The installment can no longer be paid.')
  return paid
}

/**
 * Pays installment 1 by card through the own gateway. Checked in the order of every payment call:
 * the subscription is the partner's (404), the partner's mode (422 `errors.gateway`), the state
 * (pending and not past its unpaid days, 422 `errors.status`), then the card. Approved: the card's
 * token, brand and last four digits are kept for the recurrence and the subscription is active.
 * Declined: recorded, installment 1 `refused`, and CardDeclinedError.
 */
export async function payFirstInstallmentByCard(
  db: Db,
  partner: PartnerContext,
  subscriptionId: number,
  creditCard: CardInput,
  context: CardPaymentContext,
): Promise<void> {
  const { timeZone } = context
  const now = context.clock.now()
  const subscription = await requireSubscriptionState(db, partner.partnerId, subscriptionId)
  const gateway = cardGateway(partner, context.gateway)
  if (subscription.status !== 'pending') {
    throw new StateError(`Only a pending subscription can be paid; this one is ${subscription.status}.`)
  }
  if (pastPendingExpiry(subscription.created_at, now, timeZone)) throw new ExpiredUnpaidError()
  const first = await findInstallmentByNumber(db, subscriptionId, 1)
  if (!first || !UNPAID.has(first.status)) throw new StateError('Installment 1 can no longer be paid.')
  const card = requireCard(creditCard, formatDate(now, timeZone), 'MMYY', {
    number: 'creditCard.number',
    expiry: 'creditCard.expiry',
    cvv: 'creditCard.cvv',
  })

  const payment = paymentOf(partner.partnerId, first)
  const reference = `subscription-${subscriptionId}-installment-${first.number}`
  const outcome = await chargeOnce(
    db,
    {
      claim: (trx, at, until) => claimInstallment(trx, first.id, at, until),
      release: (trx, until) => releaseInstallment(trx, first.id, until),
      charge: () => gateway.chargeCard(card, first.amount, reference),
      details: { installment_id: first.id, reference },
      async settle(trx, charged, at) {
        const { result } = charged
        if (!result.approved) {
          await recordDecline(trx, payment, 'card', result.declineCode, result.transactionId, at)
          await refuseFirstInstallment(trx, first.id)
          return result
        }
        // The claim keeps every other payment path away, so this means money was taken twice: a
        // server fault to investigate (and refund) with the gateway's reference, which the log keeps.
        if (!(await markInstallmentPaid(trx, payment, 'card', result.transactionId, at))) {
          throw new Error(`Charge ${result.transactionId} approved for installment ${first.id}, already paid`)
        }
        await storeCard(trx, subscriptionId, charged)
        return result
      },
    },
    context,
  )
  if (!outcome) {
    const current = await findInstallment(db, first.id)
    if (!current || !UNPAID.has(current.status)) throw new StateError('Installment 1 can no longer be paid.')
    throw new PaymentInProgressError()
  }
  if (!outcome.settled.approved) throw new CardDeclinedError(outcome.settled.declineCode)
}

export interface RecurrenceCharge {
  charged?: number
  declined?: number
  refused?: number
  canceled?: number
}

/**
 * Charges one due installment with its subscription's card token, through the one card-charge
 * flow. A decline is retried 1, 3 and 5 days after the due date; after the last the installment
 * is `refused` and the subscription canceled. Nothing when another worker claimed it first.
 */
export async function chargeDueInstallment(
  db: Db,
  gateway: PaymentGateway,
  installment: DueInstallment,
  context: CardPaymentContext,
): Promise<RecurrenceCharge> {
  const { timeZone, log } = context
  const attempt = installment.failed_attempts + 1
  const reference = `installment-${installment.id}-attempt-${attempt}`
  const payment: InstallmentPayment = {
    partnerId: installment.partner_id,
    subscriptionId: installment.subscription_id,
    installmentId: installment.id,
    number: installment.number,
    amount: installment.amount,
  }
  const details = { installment_id: installment.id, subscription_id: installment.subscription_id, attempt }
  const outcome = await chargeOnce(
    db,
    {
      claim: (trx, at, until) => claimDueInstallment(trx, installment, at, until),
      release: (trx, until) => releaseInstallment(trx, installment.id, until),
      charge: async () => ({ result: await gateway.chargeToken(installment.card_token, installment.amount, reference) }),
      details,
      async settle(trx, { result }, at): Promise<RecurrenceCharge> {
        if (result.approved) {
          if (await markInstallmentPaid(trx, payment, 'recurrence', result.transactionId, at)) {
            return { charged: 1 }
          }
          // Canceled between the claim and the charge: money taken for nothing, someone must refund it.
          log.warn({ ...details, transaction_id: result.transactionId }, 'charged an installment that is no longer payable')
          return {}
        }
        await recordDecline(trx, payment, 'recurrence', result.declineCode, result.transactionId, at)
        const next = retryOn(installment.due_date, attempt, formatDate(at, timeZone))
        if (!(await recordFailedAttempt(trx, installment, next))) {
          log.warn(details, 'installment changed during its charge')
          return { declined: 1 }
        }
        if (next !== null) return { declined: 1 }
        const canceled = await cancelSubscription(trx, {
          subscriptionId: installment.subscription_id,
          from: 'pago',
          reason: 'recurrence declined',
          now: at,
          keepInstallmentId: installment.id,
        })
        return { declined: 1, refused: 1, canceled: canceled ? 1 : 0 }
      },
    },
    context,
    { holdOnGatewayError: true },
  )
  return outcome?.settled ?? {}
}
