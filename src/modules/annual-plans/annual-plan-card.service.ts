import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import type { Moment } from '../../shared/clock.js'
import { AppError, StateError, ValidationError } from '../../shared/errors.js'
import { checkCard } from '../payments/card.js'
import type { CardCharge, CardData, PaymentGateway } from '../payments/payment-gateway.js'
import { type AnnualPlanRow, findAnnualPlanRow } from './annual-plan.repository.js'
import { claimForCharge, markPaid, releaseClaim } from './annual-plan-payment.repository.js'
import type { AnnualPlanCardBody } from './annual-plan-payment.schemas.js'
import { paymentAt, recordInLedger } from './annual-plan-payment.service.js'
import { statusAt } from './coverage.js'

/** How long a card charge may hold a plan before another call may take it over. */
export const CHARGE_HOLD_MS = 2 * 60 * 1000

/** The card of the body, or a 422 naming each bad field. */
export function cardOf(body: AnnualPlanCardBody, today: string): CardData {
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

export interface HeldCharge extends CardCharge {
  /** Our claim on the plan, released when the charge is recorded. */
  heldUntil: string
}

/**
 * Charges the premium while holding the plan: the claim is its own committed statement, so of
 * concurrent payments exactly one reaches the gateway; the others answer 409, or 422 when the
 * plan was paid or canceled meanwhile. A gateway failure releases the plan.
 */
export async function chargeHeld(
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
export async function recordApprovedCharge(
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
export async function recordDeclinedCharge(
  trx: Trx,
  plan: AnnualPlanRow,
  charge: HeldCharge & { result: { approved: false } },
  now: string,
): Promise<void> {
  const { declineCode, transactionId } = charge.result
  await recordInLedger(trx, plan, { route: 'card', outcome: 'declined', transactionId, declineCode }, now)
  await releaseClaim(trx, plan.id, charge.heldUntil)
}
