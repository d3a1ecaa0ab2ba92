import type { Db, Trx } from '../../db/database.js'
import type { Transactor } from '../../db/transaction.js'
import type { Clock } from '../../shared/clock.js'
import { GatewayModeError, StateError } from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import { verificationCode } from '../../shared/verification-code.js'
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
import { type AnnualPlanRow, findAnnualPlanRow } from './annual-plan.repository.js'
import { assertAwaitingPayment, paymentAt, statusAt } from './annual-plan.rules.js'
import { requireAnnualPlanRow } from './annual-plan.service.js'
import { markAnnualPlanPaid } from './annual-plan-lifecycle.service.js'
import { claimForCharge, recordInLedger, releaseClaim } from './annual-plan-payment.repository.js'

/**
 * Pays the partner's plan by card, checked in the order of every payment call: the plan is the
 * partner's (404), the partner's mode (422 `errors.gateway`), its state (422 `errors.status`), then
 * the card. Approved: paid and covered from tomorrow. Declined: recorded, the plan stays awaiting
 * payment, and CardDeclinedError. Before the state: a charge this request's key made answers it, and
 * another's unrecorded one is settled first (answeredEarlier).
 */
export async function payAnnualPlanByCard(
  db: Db,
  partner: PartnerContext,
  id: number,
  creditCard: CardInput,
  installments: number,
  context: CardPaymentContext &
    RenderingContext &
    CardTestingContext & { settleIn?: Transactor<ChargeResult> | null; requestKey?: RequestKey | null },
): Promise<void> {
  const { clock, timeZone } = context
  const at = clock.now()
  const now = at.toISOString()
  const found = await requireAnnualPlanRow(db, partner.partnerId, id)
  const gateway = cardGateway(partner, context.gateway)
  const readCard = () =>
    requireCard(creditCard, formatDate(now, timeZone), 'MM/YY', {
      number: 'card_number',
      expiry: 'card_expiry',
      cvv: 'card_cvv',
    })
  const earlier = await answeredEarlier(db, {
    of: { annualPlanId: found.id },
    requestKey: context.requestKey ?? null,
    cardMark: cardMarkOf(readCard),
    heldUntil: async () => (await findAnnualPlanRow(db, found.partner_id, found.id))?.locked_until ?? null,
    now: at,
    reconcile: (attempt, settleIn) => reconcileAnnualPlanCharge(db, gateway, attempt, context, settleIn),
    settleIn: context.settleIn,
  })
  if (earlier !== null && earlier !== 'recorded') {
    if (!earlier.own.approved) throw new CardDeclinedError(earlier.own.declineCode)
    return
  }
  const plan = earlier === 'recorded' ? await requireAnnualPlanRow(db, partner.partnerId, id) : found
  assertAwaitingPayment(plan, now)
  const card = readCard()
  const attempt = await startCardAttempt(db, { annualPlanId: plan.id }, plan.partner_id, context)
  try {
    const customerId = await gatewayCustomerOf(
      db,
      gateway,
      { customerId: plan.customer_id, partnerId: plan.partner_id },
      context,
    )
    const outcome = await chargeOnce(
      db,
      {
        claim: (trx, at, until) => claimForCharge(trx, plan.id, at, until),
        release: (trx, until) => releaseClaim(trx, plan.id, until),
        charge: async () =>
          chargeFirstCard(
            db,
            gateway,
            card,
            {
              purpose: 'annual_plan',
              of: { annualPlanId: plan.id },
              partnerId: plan.partner_id,
              reference: `annual-plan-${plan.id}`,
              idempotencyKey: `annual-plan-${plan.id}-charge-${await nextChargeNumber(db, { annualPlanId: plan.id })}`,
              amountCents: plan.premium,
              customerId,
              installments,
              requestKey: context.requestKey ?? null,
            },
            () => context.clock.now().toISOString(),
          ),
        details: { annual_plan_id: plan.id },
        settle: (trx, charged, at) => recordCardCharge(trx, plan, charged, at, context),
      },
      context,
      { settleIn: context.settleIn },
    )
    if (!outcome) {
      const current = await findAnnualPlanRow(db, plan.partner_id, plan.id)
      if (current && statusAt(current, now) !== 'awaiting_payment') {
        throw new StateError('The annual plan is no longer awaiting payment.')
      }
      throw inProgressUntil(current?.locked_until ?? null, at)
    }
    if (!outcome.settled.approved) throw new CardDeclinedError(outcome.settled.declineCode)
  } finally {
    await attempt.end()
  }
}

/**
 * Records the outcome of a card charge of the plan, once: approved, paid and covered from tomorrow
 * (`annual_plan.paid`); declined, in the ledger. Answers the outcome, also when another caller (a
 * retry, the worker) recorded this same attempt first.
 */
async function recordCardCharge(
  trx: Trx,
  plan: AnnualPlanRow,
  charged: FirstCardCharge,
  at: string,
  { timeZone, base }: RenderingContext,
): Promise<ChargeResult> {
  const { result } = charged
  if (!(await claimRecording(trx, charged, at))) return result
  if (!result.approved) {
    const entry = { route: 'card', outcome: 'declined', transactionId: result.transactionId } as const
    await recordInLedger(trx, plan, { ...entry, declineCode: result.declineCode }, at)
    return result
  }
  const { card, installments } = charged
  const paidCard = card && { brand: card.brand, last4: card.last4, installments }
  // The claim kept other charges and the cancellation away, so the plan still awaits payment.
  if (
    !(await markAnnualPlanPaid(
      trx,
      plan.id,
      paymentAt(plan.id, at, timeZone, verificationCode()),
      { timeZone, base },
      paidCard,
    ))
  ) {
    throw new UnpayableChargeError(`annual plan ${plan.id}`, result.transactionId)
  }
  await recordInLedger(
    trx,
    plan,
    { route: 'card', outcome: 'approved', transactionId: result.transactionId },
    at,
  )
  return result
}

/**
 * The reconciliation of a card charge of an annual plan (reconcileAttempt), by the worker or by a
 * payment call (answeredEarlier), recorded in `settleIn` when given.
 */
export async function reconcileAnnualPlanCharge(
  db: Db,
  gateway: PaymentGateway,
  attempt: CardAttemptRow,
  { clock, timeZone, base }: { clock: Clock } & RenderingContext,
  settleIn?: Transactor<ChargeResult> | null,
): Promise<ChargeResult> {
  const plan =
    attempt.annual_plan_id === null
      ? undefined
      : await findAnnualPlanRow(db, attempt.partner_id, attempt.annual_plan_id)
  return reconcileAttempt(
    db,
    gateway,
    attempt,
    plan,
    (trx, row, charged) => recordCardCharge(trx, row, charged, clock.now().toISOString(), { timeZone, base }),
    settleIn,
  )
}

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
  const paid = await markAnnualPlanPaid(trx, plan.id, paymentAt(plan.id, now, timeZone, verificationCode()), {
    base,
    timeZone,
  })
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
