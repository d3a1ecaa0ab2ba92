import type { FastifyBaseLogger } from 'fastify'
import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import type { Clock, Moment } from '../../shared/clock.js'
import { AppError, NotFoundError, StateError, ValidationError } from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import type { PartnerContext } from '../auth/partner-context.js'
import { checkCard } from '../payments/card.js'
import { CardDeclinedError } from '../payments/card-declined.js'
import { cardGateway } from '../payments/gateway-mode.js'
import type { CardCharge, CardData, PaymentGateway } from '../payments/payment-gateway.js'
import { type AnnualPlanRow, findAnnualPlanRow } from './annual-plan.repository.js'
import { claimForCharge, markPaid, releaseClaim } from './annual-plan-payment.repository.js'
import type { AnnualPlanCardBody } from './annual-plan-payment.schemas.js'
import { assertAwaitingPayment, paymentAt, recordInLedger } from './annual-plan-payment.service.js'
import { statusAt } from './coverage.js'

/** How long a card charge may hold a plan before another call may take it over. */
const CHARGE_HOLD_MS = 2 * 60 * 1000

/**
 * Pays the partner's plan by card: checked (mode, plan, state, card), charged while held, and the
 * outcome recorded; throws CardDeclinedError on a decline (recorded first). Charged but not
 * recorded: the plan stays held until the hold ends (a retry answers 409 meanwhile) and the log
 * gets what reconciling it takes.
 */
export async function payAnnualPlanByCard(
  db: Db,
  partner: PartnerContext,
  gateway: PaymentGateway | null,
  id: number,
  body: AnnualPlanCardBody,
  { clock, timeZone }: { clock: Clock; timeZone: string },
  log: Pick<FastifyBaseLogger, 'error'>,
): Promise<void> {
  const now = clock.now().toISOString()
  const plan = await findAnnualPlanRow(db, partner.partnerId, id)
  if (!plan) throw new NotFoundError('Annual plan')
  const own = cardGateway(partner, gateway)
  assertAwaitingPayment(plan, now)
  const card = cardOf(body, formatDate(now, timeZone))
  const charge = await chargeHeld(db, own, plan, card, now)
  const { result } = charge
  if (!result.approved) {
    await retryingTransaction(db, (trx) => recordDeclinedCharge(trx, plan, { ...charge, result }, now))
    throw new CardDeclinedError(result.declineCode)
  }
  // Paid when the gateway approved, which may be a moment after the call began.
  const moment = { now: clock.now().toISOString(), timeZone }
  try {
    await retryingTransaction(db, (trx) =>
      recordApprovedCharge(trx, plan, charge, body.installments ?? 1, moment),
    )
  } catch (error) {
    log.error(
      { err: error, annual_plan_id: plan.id, transaction_id: result.transactionId },
      'card charged but the charge could not be recorded',
    )
    throw error
  }
}

/** The card of the body, or a 422 naming each bad field. */
function cardOf(body: AnnualPlanCardBody, today: string): CardData {
  const check = checkCard(
    { number: body.card_number, expiry: body.card_expiry, cvv: body.card_cvv, holder: body.card_holder },
    today,
    'MM/YY',
  )
  if (check.ok) return check.card
  const { number, expiry, cvv } = check.errors
  throw new ValidationError({
    ...(number && { card_number: [number] }),
    ...(expiry && { card_expiry: [expiry] }),
    ...(cvv && { card_cvv: [cvv] }),
  })
}

interface HeldCharge extends CardCharge {
  /** Our claim on the plan, released when the charge is recorded. */
  heldUntil: string
}

/**
 * Charges the premium while holding the plan: the claim is its own committed statement, so of
 * concurrent payments exactly one reaches the gateway; the others answer 409, or 422 when the
 * plan was paid or canceled meanwhile. A gateway failure releases the plan.
 */
async function chargeHeld(
  db: Db,
  gateway: PaymentGateway,
  plan: AnnualPlanRow,
  card: CardData,
  now: string,
): Promise<HeldCharge> {
  const heldUntil = new Date(Date.parse(now) + CHARGE_HOLD_MS).toISOString()
  if (!(await retryingTransaction(db, (trx) => claimForCharge(trx, plan.id, now, heldUntil)))) {
    const current = await findAnnualPlanRow(db, plan.partner_id, plan.id)
    if (current && statusAt(current, now) !== 'awaiting_payment') {
      throw new StateError('The annual plan is no longer awaiting payment.')
    }
    throw new AppError(409, 'A payment of this annual plan is already in progress.')
  }
  try {
    return { ...(await gateway.chargeCard(card, plan.premium, `annual_plan:${plan.id}`)), heldUntil }
  } catch (error) {
    await retryingTransaction(db, (trx) => releaseClaim(trx, plan.id, heldUntil))
    throw error
  }
}

/** An approved charge: the plan is paid and covered from tomorrow, and the ledger has the charge. */
async function recordApprovedCharge(
  trx: Trx,
  plan: AnnualPlanRow,
  charge: HeldCharge,
  installments: number,
  moment: Moment,
): Promise<void> {
  const card = { brand: charge.brand, last4: charge.last4, installments }
  // Our claim kept other charges and the cancellation away, so the plan still awaits payment.
  if (!(await markPaid(trx, plan.id, { ...paymentAt(plan, moment), card }))) {
    throw new Error(`annual plan ${plan.id} changed during its charge ${charge.result.transactionId}`)
  }
  const entry = { route: 'card', outcome: 'approved', transactionId: charge.result.transactionId } as const
  await recordInLedger(trx, plan, entry, moment.now)
}

/** A declined charge: the ledger row, and the plan is free for another try; it stays awaiting payment. */
async function recordDeclinedCharge(
  trx: Trx,
  plan: AnnualPlanRow,
  charge: HeldCharge & { result: { approved: false } },
  now: string,
): Promise<void> {
  const { declineCode, transactionId } = charge.result
  await recordInLedger(trx, plan, { route: 'card', outcome: 'declined', transactionId, declineCode }, now)
  await releaseClaim(trx, plan.id, charge.heldUntil)
}
