import type { Db, Trx } from '../../db/database.js'
import { GatewayModeError, NotFoundError, StateError } from '../../shared/errors.js'
import type { PartnerContext } from '../auth/partner-context.js'
import {
  type FirstChargeRecorder,
  type FirstPaymentContext,
  payFirstByCard,
} from '../contracts/first-card-payment.service.js'
import type { RenderingContext } from '../events/event.service.js'
import type { CardInput } from '../payments/card.js'
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
 * Pays installment 1 by card through the own gateway (payFirstByCard), checked in the order of every
 * payment call: the subscription is the partner's (404), then the partner's mode, the state
 * (pending and not past its unpaid days), the card. Approved: the card's token, brand and last four
 * digits are kept for the recurrence and the subscription is active. Declined: recorded,
 * installment 1 `refused`, and CardDeclinedError.
 */
export async function payFirstInstallmentByCard(
  db: Db,
  partner: PartnerContext,
  subscriptionId: number,
  creditCard: CardInput,
  context: FirstPaymentContext & RenderingContext,
): Promise<void> {
  const { timeZone } = context
  const found = await requireSubscriptionState(db, partner.partnerId, subscriptionId)
  const firstId = (await findInstallmentByNumber(db, subscriptionId, 1))?.id
  await payFirstByCard<InstallmentPayment>(
    db,
    partner,
    creditCard,
    {
      contract: { subscriptionId },
      partnerId: partner.partnerId,
      customerId: found.customer_id,
      card: {
        expiry: 'MMYY',
        fields: { number: 'creditCard.number', expiry: 'creditCard.expiry', cvv: 'creditCard.cvv' },
      },
      attemptsOf: firstId === undefined ? null : { installmentId: firstId },
      current: async () => {
        const current = firstId === undefined ? undefined : await findInstallment(db, firstId)
        return { payable: !!current && isUnpaid(current.status), heldUntil: current?.locked_until ?? null }
      },
      noLongerPayable: 'Installment 1 can no longer be paid.',
      ...firstInstallmentCharges(db, context),
      payable: async (readAgain, now) => {
        const subscription = readAgain
          ? await requireSubscriptionState(db, partner.partnerId, subscriptionId)
          : found
        const first = await findInstallmentByNumber(db, subscriptionId, 1)
        assertFirstPayableByCard(subscription, first, now, timeZone)
        if (!first) throw new StateError('Installment 1 can no longer be paid.')
        return paymentOf(partner.partnerId, first)
      },
      charge: (first) => ({
        purpose: 'first_installment',
        of: { installmentId: first.installmentId },
        reference: `subscription-${subscriptionId}-installment-${first.number}`,
        keyPrefix: `installment-${first.installmentId}`,
        amountCents: first.amount,
        installments: 1,
        details: { installment_id: first.installmentId, subscription_id: subscriptionId },
      }),
      claim: (trx, first, at, until) => claimInstallment(trx, first.installmentId, at, until),
      release: (trx, first, until) => releaseInstallment(trx, first.installmentId, until),
    },
    context,
  )
}

/**
 * How a first charge of installment 1 is found from its stored attempt and recorded: by the payment
 * call and by the worker's reconciliation (reconcileFirstCharge).
 */
export const firstInstallmentCharges = (
  db: Db,
  rendering: RenderingContext,
): FirstChargeRecorder<InstallmentPayment> => ({
  itemOf: async (attempt) => {
    const row =
      attempt.installment_id === null ? undefined : await findInstallment(db, attempt.installment_id)
    return row && paymentOf(attempt.partner_id, row)
  },
  // Approved: the installment paid, the subscription active and the card kept for the recurrence.
  approved: async (trx, payment, { result, card }, at) => {
    if (!(await payInstallment(trx, payment, 'card', result.transactionId, at, rendering))) return false
    if (card) await storeCard(trx, payment.subscriptionId, card, at)
    return true
  },
  // Declined: recorded, installment 1 `refused`.
  declined: async (trx, payment, { declineCode, transactionId }, at) => {
    await recordDecline(trx, payment, 'card', declineCode, transactionId, at)
    await refuseAtCounter(trx, payment.installmentId, at, rendering)
  },
  name: (payment) => `installment ${payment.installmentId}`,
})
