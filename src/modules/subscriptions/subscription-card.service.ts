import type { Db } from '../../db/database.js'
import { retryingTransaction, type Transactor } from '../../db/transaction.js'
import { formatDate } from '../../shared/time.js'
import type { PartnerContext } from '../auth/partner-context.js'
import type { RenderingContext } from '../events/event.service.js'
import { CardDeclinedError, type CardInput, requireCard } from '../payments/card.js'
import {
  atGateway,
  type CardPaymentContext,
  type CardTestingContext,
  chargeOnce,
  gatewayCustomerOf,
  startCardAttempt,
} from '../payments/payment.service.js'
import {
  type CardData,
  cardGateway,
  type PaymentGateway,
  type SavedCard,
} from '../payments/payment-gateway.js'
import { assertCardReplaceable, statusAt } from './subscription.rules.js'
import { requireSubscriptionState } from './subscription.service.js'
import { payInstallment, recordInstallmentEvent } from './subscription-lifecycle.service.js'
import {
  nextCardCheckNumber,
  recordCardCheck,
  recordDecline,
  storeCard,
  unpaidDueInstallments,
} from './subscription-payment.repository.js'
import { savedCardCharge } from './subscription-recurrence.service.js'

// The card update (operation `updateSubscriptionCard`; README, "Going live: card payments through Stripe"): how a renewal refused by the bank is recovered while its retries run.

/**
 * Where a card update stands after one of its transactions: it goes on (`continues`), or it ended
 * with the card stored and every due charge approved (`updated`), or declined (the check or a
 * charge). The route stores its answer in the transaction that ends it.
 */
export type CardUpdateStep = 'continues' | 'updated' | { declined: string }

/**
 * Replaces the card of an active own-gateway subscription, then charges at once every installment
 * due and unpaid, oldest first, each through the one card-charge flow. Checked in the order of every
 * payment call: the partner's subscription (404), the mode (422 `errors.gateway`), the state (422
 * `errors.status`: canceled, or pending — installment 1 is paid with POST /payment, which keeps the
 * card), then the card. The gateway verifies the card without charging; declined → 402 and the old
 * card stays. A charge declined afterwards → 402 too, with the new card kept and the installment
 * left on its retry schedule (the decline is in the ledger, not counted as a retry). Each step
 * commits in its own transaction, opened by `settleIn` when given (the request's, which stores the
 * answer with the step that ends the update).
 */
export async function updateSubscriptionCard(
  db: Db,
  partner: PartnerContext,
  subscriptionId: number,
  creditCard: CardInput,
  context: CardPaymentContext &
    RenderingContext &
    CardTestingContext & { settleIn?: Transactor<CardUpdateStep> | null },
): Promise<void> {
  const now = context.clock.now()
  const subscription = await requireSubscriptionState(db, partner.partnerId, subscriptionId)
  const gateway = cardGateway(partner, context.gateway)
  assertCardReplaceable(statusAt(subscription, now, context.timeZone))
  const card = requireCard(creditCard, formatDate(now, context.timeZone), 'MMYY', {
    number: 'creditCard.number',
    expiry: 'creditCard.expiry',
    cvv: 'creditCard.cvv',
  })
  const partnerId = partner.partnerId
  const attempt = await startCardAttempt(db, { subscriptionId }, partnerId, context)
  try {
    const customerId = await gatewayCustomerOf(
      db,
      gateway,
      { customerId: subscription.customer_id, partnerId },
      context,
    )
    const settleIn: Transactor<CardUpdateStep> = context.settleIn ?? ((work) => retryingTransaction(db, work))
    const due = await unpaidDueInstallments(db, subscriptionId, formatDate(now, context.timeZone))
    const replaced = await checkAndStoreCard(db, gateway, { subscriptionId, partnerId, customerId }, card, {
      ...context,
      settleIn,
      last: due.length === 0,
    })
    // The replaced card can no longer be charged; a failure only leaves it attached, never used again.
    const previous = subscription.card_token
    if (previous && previous !== replaced.card.token) {
      await atGateway(context.log, { subscription_id: subscriptionId }, () =>
        gateway.detachCard(previous, `${replaced.operation}-detach`),
      ).catch(() => {})
    }

    const saved = { customerId, token: replaced.card.token }
    for (const [i, installment] of due.entries()) {
      const step = await chargeDue(
        db,
        gateway,
        saved,
        { ...installment, partner_id: partnerId },
        {
          ...context,
          settleIn,
          last: i === due.length - 1,
        },
      )
      if (typeof step === 'object') throw new CardDeclinedError(step.declined)
    }
  } finally {
    await attempt.end()
  }
}

type DueNow = Awaited<ReturnType<typeof unpaidDueInstallments>>[number] & { partner_id: number }

/** How a step of the card update commits: in `settleIn`, the update's `last` step or not. */
interface StepOptions {
  settleIn: Transactor<CardUpdateStep>
  last: boolean
}

/** One due installment charged to the new card; undefined when a charge in progress holds it. */
async function chargeDue(
  db: Db,
  gateway: PaymentGateway,
  saved: { customerId: string; token: string },
  installment: DueNow,
  context: CardPaymentContext & RenderingContext & StepOptions,
): Promise<CardUpdateStep | undefined> {
  const { payment, ...steps } = savedCardCharge(db, gateway, installment, saved)
  const outcome = await chargeOnce(
    db,
    {
      ...steps,
      details: { installment_id: installment.id, subscription_id: installment.subscription_id },
      async settle(trx, { result }, at): Promise<CardUpdateStep> {
        if (!result.approved) {
          await recordDecline(trx, payment, 'card', result.declineCode, result.transactionId, at)
          await recordInstallmentEvent(trx, 'installment.payment_failed', installment.id, at, context)
          return { declined: result.declineCode }
        }
        if (!(await payInstallment(trx, payment, 'card', result.transactionId, at, context))) {
          throw new Error(
            `Charge ${result.transactionId} approved for installment ${installment.id}, already paid`,
          )
        }
        return context.last ? 'updated' : 'continues'
      },
    },
    context,
    { settleIn: context.settleIn },
  )
  return outcome?.settled
}

/**
 * The card made a payment method, checked by the gateway without a charge (a SetupIntent) and
 * stored for the recurrence; declined → 402 and the old card stays. Each check is recorded (its
 * declines count towards the card-testing limit). The operation key is the check's number and the
 * card's visible part: a retry after a lost answer sends the same keys, another card its own.
 */
async function checkAndStoreCard(
  db: Db,
  gateway: PaymentGateway,
  {
    subscriptionId,
    partnerId,
    customerId,
  }: { subscriptionId: number; partnerId: number; customerId: string },
  card: CardData,
  { clock, log, settleIn, last }: Pick<CardPaymentContext, 'clock' | 'log'> & StepOptions,
): Promise<{ card: SavedCard; operation: string }> {
  const mark = `${card.number.slice(-4)}-${String(card.expiryMonth).padStart(2, '0')}${card.expiryYear}`
  const operation = `subscription-${subscriptionId}-card-check-${await nextCardCheckNumber(db, subscriptionId)}-${mark}`
  const label = { partnerId, reference: `subscription-${subscriptionId}` }
  const details = { subscription_id: subscriptionId }
  const saved = await atGateway(log, details, () =>
    gateway.saveCard(card, `${operation}-payment-method`, label),
  )
  const verification = saved.approved
    ? await atGateway(log, details, () =>
        gateway.verifyCard({ customerId, token: saved.token }, `${operation}-setup-intent`, label),
      )
    : saved
  const at = clock.now().toISOString()
  const check = { partner_id: partnerId, subscription_id: subscriptionId, created_at: at }
  if (!saved.approved || !verification.approved) {
    const declineCode = verification.approved ? 'card_declined' : verification.declineCode
    await settleIn(async (trx) => {
      await recordCardCheck(trx, { ...check, outcome: 'declined', decline_code: declineCode })
      return { declined: declineCode }
    })
    throw new CardDeclinedError(declineCode)
  }
  await settleIn(async (trx) => {
    await recordCardCheck(trx, { ...check, outcome: 'approved', decline_code: null })
    await storeCard(trx, subscriptionId, saved, at)
    return last ? 'updated' : 'continues'
  })
  return { card: saved, operation }
}
