import type { Db, Trx } from '../../db/database.js'
import { NotFoundError, StateError } from '../../shared/errors.js'
import type { PartnerContext } from '../auth/partner-context.js'
import type { RenderingContext } from '../events/event.service.js'
import type { CardPaymentContext } from '../payments/payment.service.js'
import { type PaymentCodeRow, requestCode } from '../payments/payment-code.service.js'
import { cardGateway } from '../payments/payment-gateway.js'
import { assertNotifiable } from './subscription.rules.js'
import { payInstallment } from './subscription-lifecycle.service.js'
import {
  findInstallment,
  findInstallmentByNumber,
  findPartnerInstallment,
} from './subscription-payment.repository.js'

/**
 * A PIX code for an installment (README, Going live: PIX and boleto), checked as a notification is:
 * the partner's installment (404), the own gateway (422 `errors.gateway`), then its state (422
 * `errors.status`: paid, canceled, a later one while installment 1 is unpaid, installment 1 of a
 * subscription past its unpaid days). Answers its pending code, or a new one.
 */
export async function requestInstallmentPix(
  db: Db,
  partner: PartnerContext,
  subscriptionId: number,
  installmentId: number,
  context: Pick<CardPaymentContext, 'gateway' | 'clock' | 'timeZone' | 'log'>,
): Promise<{ code: PaymentCodeRow; created: boolean }> {
  const installment = await findPartnerInstallment(db, partner.partnerId, subscriptionId, installmentId)
  if (!installment) throw new NotFoundError('Installment')
  const gateway = cardGateway(partner, context.gateway)
  if (installment.status === 'paid') throw new StateError('The installment is already paid.')
  const first = installment.number > 1 ? await findInstallmentByNumber(db, subscriptionId, 1) : undefined
  assertNotifiable(installment, () => first?.status === 'paid', context.clock.now(), context.timeZone)
  return requestCode(
    db,
    gateway,
    {
      method: 'pix',
      of: { installmentId },
      partnerId: partner.partnerId,
      reference: `subscription-${subscriptionId}-installment-${installment.number}`,
      keyPrefix: `installment-${installmentId}`,
      amountCents: installment.amount,
    },
    context,
  )
}

/**
 * Pays the installment of a code the gateway says was paid (`paid_with` its method), with its
 * events, once; false when it could not be paid (paid another way, or canceled, meanwhile).
 */
export async function payInstallmentByCode(
  trx: Trx,
  code: PaymentCodeRow,
  at: string,
  rendering: RenderingContext,
): Promise<boolean> {
  const row = code.installment_id === null ? undefined : await findInstallment(trx, code.installment_id)
  if (!row) return false
  const payment = {
    partnerId: code.partner_id,
    subscriptionId: row.subscription_id,
    installmentId: row.id,
    number: row.number,
    amount: row.amount,
  }
  // The ledger's `card` is the own gateway's route; `paid_with` says it was PIX.
  return payInstallment(trx, payment, 'card', code.gateway_reference, at, rendering, code.method)
}
