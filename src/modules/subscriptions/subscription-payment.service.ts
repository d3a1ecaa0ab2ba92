import type { Db, Trx } from '../../db/database.js'
import type { Transactor } from '../../db/transaction.js'
import type { Clock } from '../../shared/clock.js'
import { GatewayModeError, NotFoundError, StateError } from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import type { PartnerContext } from '../auth/partner-context.js'
import type { RenderingContext } from '../events/event.service.js'
import { CardDeclinedError, type CardInput, requireCard } from '../payments/card.js'
import { type CardTestingContext, startCardAttempt } from '../payments/card-testing.service.js'
import type { CardAttemptRow } from '../payments/first-charge.service.js'
import {
  answeredEarlier,
  cardMarkOf,
  chargeFirstCard,
  claimRecording,
  type FirstCardCharge,
  type RequestKey,
  reconcileAttempt,
  UnpayableChargeError,
} from '../payments/first-charge.service.js'
import { inProgressUntil } from '../payments/payment.errors.js'
import {
  type CardPaymentContext,
  chargeOnce,
  gatewayCustomerOf,
  nextChargeNumber,
} from '../payments/payment.service.js'
import { type ChargeResult, cardGateway, type PaymentGateway } from '../payments/payment-gateway.js'
import type { InstallmentRow } from './subscription.repository.js'
import { assertFirstPayableByCard, assertNotifiable, isUnpaid } from './subscription.rules.js'
import { requireSubscriptionState } from './subscription.service.js'
import { payInstallment, refuseAtCounter } from './subscription-lifecycle.service.js'
import {
  claimInstallment,
  findInstallment,
  findInstallmentByNumber,
  findPartnerInstallment,
  type InstallmentPayment,
  recordDecline,
  releaseInstallment,
  storeCard,
} from './subscription-payment.repository.js'

export type PaidInstallmentRow = InstallmentRow & { status: 'paid'; paid_at: string }

const isPaid = (row: InstallmentRow | undefined): row is PaidInstallmentRow =>
  row?.status === 'paid' && row.paid_at !== null

const paymentOf = (partnerId: number, row: InstallmentRow): InstallmentPayment => ({
  partnerId,
  subscriptionId: row.subscription_id,
  installmentId: row.id,
  number: row.number,
  amount: row.amount,
})

/**
 * Records that an external-gateway partner collected an installment. A repeat, or the loser of a
 * race, gets the installment as first paid: `payInstallment` lets exactly one caller pay it.
 */
export async function notifyInstallmentPayment(
  trx: Trx,
  partner: PartnerContext,
  subscriptionId: number,
  installmentId: number,
  { now, timeZone, base }: { now: Date } & RenderingContext,
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
  const first = installment.number > 1 ? await findInstallmentByNumber(trx, subscriptionId, 1) : undefined
  assertNotifiable(installment, () => first?.status === 'paid', now, timeZone)
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
 * Declined: recorded, installment 1 `refused`, and CardDeclinedError. Before the state: a first
 * charge this request's key made answers it, and another's unrecorded one is settled first
 * (answeredEarlier).
 */
export async function payFirstInstallmentByCard(
  db: Db,
  partner: PartnerContext,
  subscriptionId: number,
  creditCard: CardInput,
  context: CardPaymentContext &
    RenderingContext &
    CardTestingContext & { settleIn?: Transactor<ChargeResult> | null; requestKey?: RequestKey | null },
): Promise<void> {
  const { timeZone } = context
  const now = context.clock.now()
  const found = await requireSubscriptionState(db, partner.partnerId, subscriptionId)
  const gateway = cardGateway(partner, context.gateway)
  const readCard = () =>
    requireCard(creditCard, formatDate(now, timeZone), 'MMYY', {
      number: 'creditCard.number',
      expiry: 'creditCard.expiry',
      cvv: 'creditCard.cvv',
    })
  const earlier = await firstChargedEarlier(db, gateway, subscriptionId, now, {
    ...context,
    cardMark: cardMarkOf(readCard),
  })
  if (earlier !== null && earlier !== 'recorded') {
    if (!earlier.own.approved) throw new CardDeclinedError(earlier.own.declineCode)
    return
  }
  const subscription =
    earlier === 'recorded' ? await requireSubscriptionState(db, partner.partnerId, subscriptionId) : found
  const first = await findInstallmentByNumber(db, subscriptionId, 1)
  assertFirstPayableByCard(subscription, first, now, timeZone)
  if (!first) throw new StateError('Installment 1 can no longer be paid.')
  const card = readCard()

  const attempt = await startCardAttempt(db, { subscriptionId }, partner.partnerId, context)
  try {
    const customerId = await gatewayCustomerOf(
      db,
      gateway,
      { customerId: subscription.customer_id, partnerId: partner.partnerId },
      context,
    )
    const outcome = await chargeOnce(
      db,
      {
        claim: (trx, at, until) => claimInstallment(trx, first.id, at, until),
        release: (trx, until) => releaseInstallment(trx, first.id, until),
        charge: async () =>
          chargeFirstCard(
            db,
            gateway,
            card,
            {
              purpose: 'first_installment',
              of: { installmentId: first.id },
              partnerId: partner.partnerId,
              reference: `subscription-${subscriptionId}-installment-${first.number}`,
              idempotencyKey: `installment-${first.id}-charge-${await nextChargeNumber(db, { installmentId: first.id })}`,
              amountCents: first.amount,
              customerId,
              installments: 1,
              requestKey: context.requestKey ?? null,
            },
            () => context.clock.now().toISOString(),
          ),
        details: { installment_id: first.id, subscription_id: subscriptionId },
        settle: (trx, charged, at) =>
          recordFirstCharge(trx, paymentOf(partner.partnerId, first), charged, at, context),
      },
      context,
      { settleIn: context.settleIn },
    )
    if (!outcome) {
      const current = await findInstallment(db, first.id)
      if (!current || !isUnpaid(current.status)) throw new StateError('Installment 1 can no longer be paid.')
      throw inProgressUntil(current.locked_until, now)
    }
    if (!outcome.settled.approved) throw new CardDeclinedError(outcome.settled.declineCode)
  } finally {
    await attempt.end()
  }
}

/** The earlier first charges of installment 1 that answer or precede this payment (answeredEarlier). */
async function firstChargedEarlier(
  db: Db,
  gateway: PaymentGateway,
  subscriptionId: number,
  now: Date,
  context: {
    clock: Clock
    settleIn?: Transactor<ChargeResult> | null
    requestKey?: RequestKey | null
    cardMark: string | null
  } & RenderingContext,
) {
  const first = await findInstallmentByNumber(db, subscriptionId, 1)
  if (!first) return null
  return answeredEarlier(db, {
    of: { installmentId: first.id },
    requestKey: context.requestKey ?? null,
    cardMark: context.cardMark,
    heldUntil: async () => (await findInstallment(db, first.id))?.locked_until ?? null,
    now,
    reconcile: (attempt, settleIn) => reconcileFirstInstallment(db, gateway, attempt, context, settleIn),
    settleIn: context.settleIn,
  })
}

/**
 * Records the outcome of a first charge of installment 1, once: approved, the installment is paid,
 * the subscription active and the card kept; declined, installment 1 is `refused`. Answers the
 * outcome, also when another caller (a retry, the worker) recorded this same attempt first.
 */
async function recordFirstCharge(
  trx: Trx,
  payment: InstallmentPayment,
  charged: FirstCardCharge,
  at: string,
  rendering: RenderingContext,
): Promise<ChargeResult> {
  const { result } = charged
  if (!(await claimRecording(trx, charged, at))) return result
  if (!result.approved) {
    await recordDecline(trx, payment, 'card', result.declineCode, result.transactionId, at)
    await refuseAtCounter(trx, payment.installmentId, at, rendering)
    return result
  }
  // The claim keeps every other payment path away, so this means money was taken twice (or for a
  // subscription canceled meanwhile): a server fault to investigate (and refund) with the gateway's
  // reference, which the log keeps.
  if (!(await payInstallment(trx, payment, 'card', result.transactionId, at, rendering))) {
    throw new UnpayableChargeError(`installment ${payment.installmentId}`, result.transactionId)
  }
  if (charged.card) await storeCard(trx, payment.subscriptionId, charged.card, at)
  return result
}

/**
 * The reconciliation of a first charge of installment 1 (reconcileAttempt), by the worker or by a
 * payment call (answeredEarlier), recorded in `settleIn` when given.
 */
export async function reconcileFirstInstallment(
  db: Db,
  gateway: PaymentGateway,
  attempt: CardAttemptRow,
  { clock, timeZone, base }: { clock: Clock } & RenderingContext,
  settleIn?: Transactor<ChargeResult> | null,
): Promise<ChargeResult> {
  const installment =
    attempt.installment_id === null ? undefined : await findInstallment(db, attempt.installment_id)
  return reconcileAttempt(
    db,
    gateway,
    attempt,
    installment,
    (trx, row, charged) =>
      recordFirstCharge(trx, paymentOf(attempt.partner_id, row), charged, clock.now().toISOString(), {
        timeZone,
        base,
      }),
    settleIn,
  )
}
