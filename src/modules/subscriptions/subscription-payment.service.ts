import type { Db, Trx } from '../../db/database.js'
import type { Transactor } from '../../db/transaction.js'
import { GatewayModeError, NotFoundError, StateError } from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import type { PartnerContext } from '../auth/partner-context.js'
import type { EventContext } from '../events/event.service.js'
import { CardDeclinedError, type CardInput, requireCard } from '../payments/card.js'
import {
  type CardPaymentContext,
  chargeOnce,
  gatewayCustomerOf,
  nextChargeNumber,
  PaymentInProgressError,
} from '../payments/payment.service.js'
import { type ChargeResult, cardGateway } from '../payments/payment-gateway.js'
import { PENDING_EXPIRY_DAYS, pastPendingExpiry } from './schedule.js'
import type { InstallmentRow } from './subscription.repository.js'
import { requireSubscriptionState } from './subscription.service.js'
import { payInstallment, recordInstallmentEvent } from './subscription-events.service.js'
import {
  claimInstallment,
  findInstallment,
  findInstallmentByNumber,
  findPartnerInstallment,
  type InstallmentPayment,
  recordDecline,
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
  { now, timeZone, base }: { now: Date } & EventContext,
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
  await payInstallment(
    trx,
    paymentOf(partner.partnerId, installment),
    'notification',
    null,
    now.toISOString(),
    {
      base,
      timeZone,
    },
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
  context: CardPaymentContext & EventContext & { settleIn?: Transactor<ChargeResult> | null },
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
  const customerId = await gatewayCustomerOf(db, gateway, subscription.customer_id, context)
  const reference = `subscription-${subscriptionId}-installment-${first.number}`
  const outcome = await chargeOnce(
    db,
    {
      claim: (trx, at, until) => claimInstallment(trx, first.id, at, until),
      release: (trx, until) => releaseInstallment(trx, first.id, until),
      charge: async () => {
        const charge = await nextChargeNumber(db, { installmentId: first.id })
        return gateway.chargeCard(card, {
          amountCents: first.amount,
          customerId,
          saveForLater: true,
          reference,
          idempotencyKey: `installment-${first.id}-charge-${charge}`,
        })
      },
      details: { installment_id: first.id, reference },
      async settle(trx, charged, at) {
        const { result } = charged
        if (!result.approved) {
          await recordDecline(trx, payment, 'card', result.declineCode, result.transactionId, at)
          await refuseFirstInstallment(trx, first.id)
          await recordInstallmentEvent(trx, 'installment.payment_failed', first.id, at, context)
          return result
        }
        // The claim keeps every other payment path away, so this means money was taken twice: a
        // server fault to investigate (and refund) with the gateway's reference, which the log keeps.
        if (!(await payInstallment(trx, payment, 'card', result.transactionId, at, context))) {
          throw new Error(`Charge ${result.transactionId} approved for installment ${first.id}, already paid`)
        }
        await storeCard(trx, subscriptionId, charged, at)
        return result
      },
    },
    context,
    { settleIn: context.settleIn },
  )
  if (!outcome) {
    const current = await findInstallment(db, first.id)
    if (!current || !UNPAID.has(current.status)) throw new StateError('Installment 1 can no longer be paid.')
    throw new PaymentInProgressError()
  }
  if (!outcome.settled.approved) throw new CardDeclinedError(outcome.settled.declineCode)
}
