import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { StateError } from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import type { PartnerContext } from '../auth/partner-context.js'
import type { EventContext } from '../events/event.service.js'
import { CardDeclinedError, type CardInput, requireCard } from '../payments/card.js'
import {
  atGateway,
  type CardPaymentContext,
  chargeOnce,
  gatewayCustomerOf,
} from '../payments/payment.service.js'
import { type ChargeResult, cardGateway, type PaymentGateway } from '../payments/payment-gateway.js'
import { requireSubscriptionState } from './subscription.service.js'
import { payInstallment, recordInstallmentEvent } from './subscription-events.service.js'
import { recordDecline, storeCard, unpaidDueInstallments } from './subscription-payment.repository.js'
import { savedCardCharge } from './subscription-recurrence.service.js'

// CONTRACT §16's card update: how a renewal refused by the bank is recovered while its retries run.

/**
 * Replaces the card of an active own-gateway subscription, then charges at once every installment
 * due and unpaid, oldest first, each through the one card-charge flow. Checked in the order of every
 * payment call: the partner's subscription (404), the mode (422 `errors.gateway`), the state (422
 * `errors.status`: canceled, or pending — installment 1 is paid with POST /payment, which keeps the
 * card), then the card. The gateway verifies the card without charging; declined → 402 and the old
 * card stays. A charge declined afterwards → 402 too, with the new card kept and the installment
 * left on its retry schedule (the decline is in the ledger, not counted as a retry).
 */
export async function updateSubscriptionCard(
  db: Db,
  partner: PartnerContext,
  subscriptionId: number,
  creditCard: CardInput,
  context: CardPaymentContext & EventContext,
): Promise<void> {
  const now = context.clock.now()
  const subscription = await requireSubscriptionState(db, partner.partnerId, subscriptionId)
  const gateway = cardGateway(partner, context.gateway)
  if (subscription.status === 'canceled') throw new StateError('The subscription is canceled.')
  if (subscription.status === 'pending') {
    throw new StateError(
      'Installment 1 is unpaid: pay it with POST /subscriptions/{id}/payment, which keeps the card.',
    )
  }
  const card = requireCard(creditCard, formatDate(now, context.timeZone), 'MMYY', {
    number: 'creditCard.number',
    expiry: 'creditCard.expiry',
    cvv: 'creditCard.cvv',
  })
  const customerId = await gatewayCustomerOf(db, gateway, subscription.customer_id, context)
  // A verification charges nothing, so each call may make its own: a repeat after a lost answer
  // leaves at worst an unused card at the gateway. The library's own retry reuses this key.
  const key = `subscription-${subscriptionId}-card-${randomUUID()}`
  const verification = await atGateway(context.log, { subscription_id: subscriptionId }, () =>
    gateway.verifyCard(card, customerId, key),
  )
  if (!verification.approved) throw new CardDeclinedError(verification.declineCode)
  await retryingTransaction(db, (trx) => storeCard(trx, subscriptionId, verification, now.toISOString()))

  const saved = { customerId, token: verification.token }
  for (const installment of await unpaidDueInstallments(
    db,
    subscriptionId,
    formatDate(now, context.timeZone),
  )) {
    const result = await chargeDue(
      db,
      gateway,
      saved,
      { ...installment, partner_id: partner.partnerId },
      context,
    )
    if (result && !result.approved) throw new CardDeclinedError(result.declineCode)
  }
}

type DueNow = Awaited<ReturnType<typeof unpaidDueInstallments>>[number] & { partner_id: number }

/** One due installment charged to the new card; undefined when a charge in progress holds it. */
async function chargeDue(
  db: Db,
  gateway: PaymentGateway,
  saved: { customerId: string; token: string },
  installment: DueNow,
  context: CardPaymentContext & EventContext,
): Promise<ChargeResult | undefined> {
  const { payment, ...steps } = savedCardCharge(db, gateway, installment, saved)
  const outcome = await chargeOnce(
    db,
    {
      ...steps,
      details: { installment_id: installment.id, subscription_id: installment.subscription_id },
      async settle(trx, { result }, at) {
        if (!result.approved) {
          await recordDecline(trx, payment, 'card', result.declineCode, result.transactionId, at)
          await recordInstallmentEvent(trx, 'installment.payment_failed', installment.id, at, context)
          return result
        }
        if (!(await payInstallment(trx, payment, 'card', result.transactionId, at, context))) {
          throw new Error(
            `Charge ${result.transactionId} approved for installment ${installment.id}, already paid`,
          )
        }
        return result
      },
    },
    context,
  )
  return outcome?.settled
}
