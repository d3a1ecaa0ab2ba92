import type { Db, Trx } from '../../db/database.js'
import type { PartnerScope } from '../../db/partner-scope.js'
import { formatDate } from '../../shared/time.js'
import type { RenderingContext } from '../events/event.service.js'
import { type CardPaymentContext, chargeOnce, nextChargeNumber } from '../payments/payment.service.js'
import type { PaymentGateway } from '../payments/payment-gateway.js'
import { retryOn } from './schedule.js'
import { recurrenceCancellation } from './subscription.rules.js'
import {
  cancelSubscription,
  payInstallment,
  recordRecurrenceDecline,
} from './subscription-lifecycle.service.js'
import {
  type InstallmentPayment,
  recordDecline,
  releaseInstallment,
} from './subscription-payment.repository.js'
import {
  claimDueInstallment,
  type DueInstallment,
  findDueInstallments as findDue,
} from './subscription-recurrence.repository.js'

// The recurrence (README, Subscriptions): later installments charged with the stored card on their due dates.

export type { DueInstallment }

/** Installments the recurrence should charge at `now`, oldest attempt day first. */
export async function findDueInstallments(
  db: Db,
  { now, timeZone, limit, scope }: { now: Date; timeZone: string; limit: number; scope?: PartnerScope },
): Promise<DueInstallment[]> {
  return findDue(db, { today: formatDate(now, timeZone), now: now.toISOString(), limit, scope })
}

/**
 * A due installment charged on a saved card, as the card-charge flow takes it: claimed while due
 * and not held, released if the charge never happened, charged with a fresh charge number (the
 * gateway's idempotency key). The recurrence and the card update settle it each their own way.
 */
export function savedCardCharge(
  db: Db,
  gateway: PaymentGateway,
  installment: Pick<DueInstallment, 'id' | 'failed_attempts' | 'subscription_id' | 'number' | 'amount'> & {
    partner_id: number
  },
  saved: { customerId: string; token: string },
) {
  const payment: InstallmentPayment = {
    partnerId: installment.partner_id,
    subscriptionId: installment.subscription_id,
    installmentId: installment.id,
    number: installment.number,
    amount: installment.amount,
  }
  return {
    payment,
    claim: (trx: Trx, at: string, until: string) => claimDueInstallment(trx, installment, at, until),
    release: (trx: Trx, until: string) => releaseInstallment(trx, installment.id, until),
    charge: async () => {
      const charge = await nextChargeNumber(db, { installmentId: installment.id })
      const key = `installment-${installment.id}-charge-${charge}`
      const label = {
        partnerId: installment.partner_id,
        reference: `subscription-${installment.subscription_id}-installment-${installment.number}`,
      }
      return { result: await gateway.chargeSaved(saved, installment.amount, key, label) }
    },
  }
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
  context: CardPaymentContext & RenderingContext,
): Promise<RecurrenceCharge> {
  const { timeZone, log } = context
  const attempt = installment.failed_attempts + 1
  const saved = { customerId: installment.gateway_customer_id ?? '', token: installment.card_token }
  const { payment, ...steps } = savedCardCharge(db, gateway, installment, saved)
  const details = { installment_id: installment.id, subscription_id: installment.subscription_id, attempt }
  const outcome = await chargeOnce(
    db,
    {
      ...steps,
      details,
      async settle(trx, { result }, at): Promise<RecurrenceCharge> {
        if (result.approved) {
          if (await payInstallment(trx, payment, 'recurrence', result.transactionId, at, context)) {
            return { charged: 1 }
          }
          // Canceled between the claim and the charge: money taken for nothing, someone must refund it.
          log.warn(
            { ...details, transaction_id: result.transactionId },
            'charged an installment that is no longer payable',
          )
          return {}
        }
        await recordDecline(trx, payment, 'recurrence', result.declineCode, result.transactionId, at)
        const next = retryOn(installment.due_date, attempt, formatDate(at, timeZone))
        if (!(await recordRecurrenceDecline(trx, installment, next, at, context))) {
          log.warn(details, 'installment changed during its charge')
          return { declined: 1 }
        }
        const ending = recurrenceCancellation(next)
        if (ending === null) return { declined: 1 }
        const cancellation = {
          subscriptionId: installment.subscription_id,
          ...ending,
          comment: null,
          now: at,
          keepInstallmentId: installment.id,
        }
        const canceled = await cancelSubscription(trx, cancellation, context)
        return { declined: 1, refused: 1, canceled: canceled ? 1 : 0 }
      },
    },
    context,
    { holdOnGatewayError: true },
  )
  return outcome?.settled ?? {}
}
