import { randomBytes } from 'node:crypto'
import type { Db, Trx } from '../../db/database.js'
import { GatewayModeError, StateError } from '../../shared/errors.js'
import type { PartnerContext } from '../auth/partner-context.js'
import { verificationCode } from '../certificates/certificate.rules.js'
import {
  type FirstChargeRecorder,
  type FirstPaymentContext,
  payFirstByCard,
} from '../contracts/first-card-payment.service.js'
import type { RenderingContext } from '../events/event.service.js'
import type { CardInput } from '../payments/card.js'
import { type AnnualPlanRow, findAnnualPlanRow } from './annual-plan.repository.js'
import { assertAwaitingPayment, paymentAt, statusAt } from './annual-plan.rules.js'
import { requireAnnualPlanRow } from './annual-plan.service.js'
import { markAnnualPlanPaid } from './annual-plan-lifecycle.service.js'
import { claimForCharge, recordInLedger, releaseClaim } from './annual-plan-payment.repository.js'

/**
 * Pays the partner's plan by card (payFirstByCard), checked in the order of every payment call: the
 * plan is the partner's (404), then the partner's mode, its state, the card. Approved: paid and
 * covered from tomorrow. Declined: recorded, the plan stays awaiting payment, and CardDeclinedError.
 */
export async function payAnnualPlanByCard(
  db: Db,
  partner: PartnerContext,
  id: number,
  creditCard: CardInput,
  installments: number,
  context: FirstPaymentContext & RenderingContext,
): Promise<void> {
  const found = await requireAnnualPlanRow(db, partner.partnerId, id)
  await payFirstByCard<AnnualPlanRow>(
    db,
    partner,
    creditCard,
    {
      contract: { annualPlanId: found.id },
      partnerId: found.partner_id,
      customerId: found.customer_id,
      card: { expiry: 'MM/YY', fields: { number: 'card_number', expiry: 'card_expiry', cvv: 'card_cvv' } },
      attemptsOf: { annualPlanId: found.id },
      current: async (now) => {
        const current = await findAnnualPlanRow(db, found.partner_id, found.id)
        return {
          payable: !current || statusAt(current, now.toISOString()) === 'awaiting_payment',
          heldUntil: current?.locked_until ?? null,
        }
      },
      noLongerPayable: 'The annual plan is no longer awaiting payment.',
      ...annualPlanCharges(db, context),
      payable: async (readAgain, now) => {
        const plan = readAgain ? await requireAnnualPlanRow(db, partner.partnerId, id) : found
        assertAwaitingPayment(plan, now.toISOString())
        return plan
      },
      charge: (plan) => ({
        purpose: 'annual_plan',
        of: { annualPlanId: plan.id },
        reference: `annual-plan-${plan.id}`,
        keyPrefix: `annual-plan-${plan.id}`,
        amountCents: plan.premium,
        installments,
        details: { annual_plan_id: plan.id },
      }),
      claim: (trx, plan, at, until) => claimForCharge(trx, plan.id, at, until),
      release: (trx, plan, until) => releaseClaim(trx, plan.id, until),
    },
    context,
  )
}

/**
 * How a card charge of a plan is found from its stored attempt and recorded: by the payment call
 * and by the worker's reconciliation (reconcileFirstCharge).
 */
export const annualPlanCharges = (
  db: Db,
  rendering: RenderingContext,
): FirstChargeRecorder<AnnualPlanRow> => ({
  itemOf: async (attempt) =>
    attempt.annual_plan_id === null
      ? undefined
      : findAnnualPlanRow(db, attempt.partner_id, attempt.annual_plan_id),
  // Approved: paid and covered from tomorrow (`annual_plan.paid`). The claim kept other charges
  // and the cancellation away, so the plan still awaits payment.
  approved: async (trx, plan, { result, card, installments }, at) => {
    const paidCard = card && { brand: card.brand, last4: card.last4, installments }
    const payment = paymentAt(plan.id, at, rendering.timeZone, verificationCode(randomBytes))
    if (!(await markAnnualPlanPaid(trx, plan.id, payment, 'card', rendering, paidCard))) return false
    const entry = { route: 'card', outcome: 'approved', transactionId: result.transactionId } as const
    await recordInLedger(trx, plan, entry, at)
    return true
  },
  // Declined: in the ledger; the plan stays awaiting payment.
  declined: async (trx, plan, { declineCode, transactionId }, at) => {
    await recordInLedger(trx, plan, { route: 'card', outcome: 'declined', transactionId, declineCode }, at)
  },
  name: (plan) => `annual plan ${plan.id}`,
})

/** The refusals of a notification: the wrong gateway mode, or a canceled plan. */
export function assertNotifiable(partner: PartnerContext, plan: AnnualPlanRow, now: string): void {
  if (partner.gateway !== 'external') {
    throw new GatewayModeError(
      'This partner uses the own gateway: pay annual plans with POST /annual-plans/{id}/payment.',
    )
  }
  if (statusAt(plan, now) === 'canceled') throw new StateError('The annual plan is canceled.')
}

/**
 * The partner collected the payment itself: the plan is paid once. A repeat, or a notification
 * racing another, finds it paid already and writes nothing (the conditional update decides).
 * Answers the plan as this call paid it, or null when it was not this call.
 */
export async function recordNotifiedPayment(
  trx: Trx,
  plan: AnnualPlanRow,
  { now, timeZone, base }: { now: string } & RenderingContext,
): Promise<AnnualPlanRow | null> {
  const paid = await markAnnualPlanPaid(
    trx,
    plan.id,
    paymentAt(plan.id, now, timeZone, verificationCode(randomBytes)),
    'external',
    {
      base,
      timeZone,
    },
  )
  if (!paid) return null
  await recordInLedger(trx, plan, { route: 'notification', outcome: 'recorded', transactionId: null }, now)
  return paid
}

/**
 * A notification: answers the plan as paid, by this call or by a concurrent one that decided first
 * (read again). This call paid it: it says so, even if a cancellation was confirmed the moment after
 * (its refund covers this payment); answering 422 would tell the partner nothing was recorded.
 */
export async function notifyAnnualPlanPayment(
  trx: Trx,
  partner: PartnerContext,
  id: number,
  moment: { now: string } & RenderingContext,
): Promise<AnnualPlanRow> {
  const plan = await requireAnnualPlanRow(trx, partner.partnerId, id)
  assertNotifiable(partner, plan, moment.now)
  if (plan.status === 'awaiting_payment') {
    const recorded = await recordNotifiedPayment(trx, plan, moment)
    if (recorded) return recorded
  }
  const paid = await requireAnnualPlanRow(trx, partner.partnerId, plan.id)
  assertNotifiable(partner, paid, moment.now)
  return paid
}
