import type { Trx } from '../../db/database.js'
import type { PaymentChannel } from '../../db/tables/payment.js'
import { verificationCode } from '../../shared/verification-code.js'
import { nextPolicyNumber } from '../annual-plans/annual-plan.service.js'
import { type RenderingContext, recordEvent } from '../events/event.service.js'
import { installmentResource, subscriptionResource } from './subscription.mapper.js'
import { findInstallmentOwner, findSubscriptionViewById } from './subscription.repository.js'
import { activationBy } from './subscription.rules.js'
import {
  type InstallmentPayment,
  issuePolicy,
  markInstallmentPaid,
  moveSubscription,
} from './subscription-payment.repository.js'

// The subscription module's events (README, Events), each written in the transaction of its change,
// with the resource as GET /subscriptions/{id} or /installments shows it once the change is made.

/** Writes a `subscription.*` event of the subscription as it now is. */
export async function recordSubscriptionEvent(
  trx: Trx,
  type: 'subscription.activated' | 'subscription.canceled' | 'subscription.expired',
  subscriptionId: number,
  now: string,
  { base, timeZone }: RenderingContext,
): Promise<void> {
  const view = await findSubscriptionViewById(trx, subscriptionId)
  if (!view) throw new Error(`subscription ${subscriptionId} not found for its event`)
  await recordEvent(trx, {
    partnerId: view.partner_id,
    type,
    object: subscriptionResource(view, base, timeZone),
    now,
  })
}

/** Writes an `installment.*` event of the installment as it now is. */
export async function recordInstallmentEvent(
  trx: Trx,
  type: 'installment.paid' | 'installment.payment_failed',
  installmentId: number,
  now: string,
  { timeZone }: Pick<RenderingContext, 'timeZone'>,
): Promise<void> {
  const row = await findInstallmentOwner(trx, installmentId)
  if (!row) throw new Error(`installment ${installmentId} not found for its event`)
  const { partner_id: partnerId, ...installment } = row
  await recordEvent(trx, { partnerId, type, object: installmentResource(installment, timeZone), now })
}

/**
 * Pays an installment once (markInstallmentPaid) with its events: `installment.paid`, then, when
 * it activates a pending subscription (activationBy), its policy number and certificate code, and
 * `subscription.activated`. False, and nothing written, for the loser of a race.
 */
export async function payInstallment(
  trx: Trx,
  payment: InstallmentPayment,
  channel: PaymentChannel,
  transactionId: string | null,
  now: string,
  rendering: RenderingContext,
): Promise<boolean> {
  if (!(await markInstallmentPaid(trx, payment, channel, transactionId, now))) return false
  await recordInstallmentEvent(trx, 'installment.paid', payment.installmentId, now, rendering)
  const activation = activationBy(payment.number)
  if (activation && (await moveSubscription(trx, payment.subscriptionId, activation, now))) {
    await issuePolicy(trx, payment.subscriptionId, {
      policyNumber: await nextPolicyNumber(trx, now, rendering.timeZone),
      certificateCode: verificationCode(),
    })
    await recordSubscriptionEvent(trx, 'subscription.activated', payment.subscriptionId, now, rendering)
  }
  return true
}
