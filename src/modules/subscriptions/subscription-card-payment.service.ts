import type { FastifyBaseLogger } from 'fastify'
import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { StateError, ValidationError } from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import type { PartnerContext } from '../auth/principal.repository.js'
import { type CardInput, checkCard } from '../payments/card.js'
import { CardDeclinedError } from '../payments/card-declined.js'
import { cardGateway } from '../payments/gateway-mode.js'
import type { CardCharge, CardData, PaymentGateway } from '../payments/payment-gateway.js'
import { type InstallmentPayment, markInstallmentPaid, recordDecline } from './installment-payment.js'
import { pastPendingExpiry } from './schedule.js'
import { requireSubscriptionState } from './subscription.service.js'
import {
  claimInstallment,
  findInstallment,
  findInstallmentByNumber,
  refuseInstallment,
  releaseInstallment,
  storeCard,
} from './subscription-payment.repository.js'
import {
  ExpiredUnpaidError,
  installmentPayment,
  PaymentInProgressError,
  type PaymentMoment,
  UNPAID,
} from './subscription-payment.service.js'

// Installment 1 paid by card through the own gateway: checked, claimed, charged, recorded.

/** How long a card charge may hold installment 1 before another try may take it over. */
export const CLAIM_SECONDS = 60

/**
 * Charges installment 1 to the card and records the outcome; throws CardDeclinedError on a decline
 * (recorded first). Charged but not recorded: the claim is kept, so no retry charges the card again
 * while it lasts, and the log gets what reconciling it takes.
 */
export async function payFirstInstallmentByCard(
  db: Db,
  partner: PartnerContext,
  gateway: PaymentGateway | null,
  subscriptionId: number,
  creditCard: CardInput,
  moment: PaymentMoment,
  log: Pick<FastifyBaseLogger, 'error'>,
): Promise<void> {
  const payment = await prepareCardPayment(db, partner, gateway, subscriptionId, creditCard, moment)
  const { installment } = payment
  const reference = `subscription-${subscriptionId}-installment-${installment.number}`
  const { now } = moment
  const { result } = await withInstallmentClaim(db, installment.installmentId, now, async (claim) => {
    const charge = await payment.gateway.chargeCard(payment.card, installment.amount, reference)
    try {
      await retryingTransaction(db, (trx) => recordCardCharge(trx, installment, charge, now.toISOString()))
    } catch (error) {
      if (charge.result.approved) {
        claim.keep()
        log.error(
          {
            err: error,
            installment_id: installment.installmentId,
            reference,
            transaction_id: charge.result.transactionId,
          },
          'card charged but the charge could not be recorded',
        )
      }
      throw error
    }
    return charge
  })
  if (!result.approved) throw new CardDeclinedError(result.declineCode)
}

interface CardPayment {
  gateway: PaymentGateway
  card: CardData
  installment: InstallmentPayment
}

/**
 * Everything a card payment needs, checked in the order a caller fixes them: the partner's mode,
 * the environment's gateway, the subscription, the card, then the subscription's state (pending,
 * and not past its unpaid days).
 */
async function prepareCardPayment(
  db: Db,
  partner: PartnerContext,
  gateway: PaymentGateway | null,
  subscriptionId: number,
  creditCard: CardInput,
  { now, timeZone }: PaymentMoment,
): Promise<CardPayment> {
  const own = cardGateway(partner, gateway)
  const subscription = await requireSubscriptionState(db, partner.partnerId, subscriptionId)
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
async function withInstallmentClaim<T>(
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
async function recordCardCharge(
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
