import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import {
  type CardAttemptOf,
  type CardAttemptRow,
  closeAttempt,
  findOpenAttempt,
  findStaleAttempts,
  storeAttempt,
} from './card-attempt.repository.js'
import type { CardData, ChargeResult, GatewayLabel, PaymentGateway, SavedCard } from './payment-gateway.js'

// A first charge (installment 1, an annual plan) is two gateway calls: the card becomes a payment
// method, then a PaymentIntent charges it. Between the two, the attempt is stored: the card itself
// is gone after the request, but the attempt is enough to send the same PaymentIntent call again,
// which the gateway answers from the first one (the same idempotency key), so a charge whose
// outcome was lost is recorded later, by a retry or the worker, and never made twice.

/** A first charge as the card-charge flow settles it. */
export interface FirstCardCharge {
  result: ChargeResult
  /** The card as a payment method; null when the gateway refused the card details outright. */
  card: SavedCard | null
  /** The stored attempt the recording transaction closes; null when nothing was charged. */
  attemptId: number | null
  /** The card issuer's installments of an annual plan; 1: at once. */
  installments: number
}

export interface FirstChargePlan extends GatewayLabel {
  purpose: CardAttemptRow['purpose']
  of: CardAttemptOf
  /** The charge's operation key (`installment-<id>-charge-<n>`…). */
  idempotencyKey: string
  amountCents: number
  customerId: string
  /** The card issuer's installments of an annual plan; 1: at once. */
  installments: number
}

/**
 * The first charge of `plan` with `card`, called while its item is claimed. An attempt left open by
 * an earlier call whose answer was lost is replayed instead: its outcome is this call's answer.
 */
export async function chargeFirstCard(
  db: Db,
  gateway: PaymentGateway,
  card: CardData,
  plan: FirstChargePlan,
  now: () => string,
): Promise<FirstCardCharge> {
  const open = await findOpenAttempt(db, plan.of)
  if (open) return replayAttempt(gateway, open)
  // The card's visible part in the key: a retry with the same card gets the same payment method
  // back, one with another card (after an unanswered first try) makes its own.
  const mark = `${card.number.slice(-4)}-${String(card.expiryMonth).padStart(2, '0')}${card.expiryYear}`
  const saved = await gateway.saveCard(card, `${plan.idempotencyKey}-payment-method-${mark}`, plan)
  if (!saved.approved) {
    return {
      result: { approved: false, declineCode: saved.declineCode, transactionId: null },
      card: null,
      attemptId: null,
      installments: plan.installments,
    }
  }
  const attempt = await storeAttempt(db, {
    partner_id: plan.partnerId,
    purpose: plan.purpose,
    installment_id: 'installmentId' in plan.of ? plan.of.installmentId : null,
    annual_plan_id: 'annualPlanId' in plan.of ? plan.of.annualPlanId : null,
    idempotency_key: plan.idempotencyKey,
    reference: plan.reference,
    amount: plan.amountCents,
    installments: plan.installments,
    gateway_customer_id: plan.customerId,
    payment_method: saved.token,
    card_brand: saved.brand,
    card_last4: saved.last4,
    created_at: now(),
  })
  return replayAttempt(gateway, attempt)
}

/** The stored attempt's PaymentIntent call, exactly as first sent (its first sending included). */
export async function replayAttempt(
  gateway: PaymentGateway,
  attempt: CardAttemptRow,
): Promise<FirstCardCharge> {
  const result = await gateway.chargeCard({
    partnerId: attempt.partner_id,
    reference: attempt.reference,
    idempotencyKey: attempt.idempotency_key,
    amountCents: attempt.amount,
    customerId: attempt.gateway_customer_id,
    paymentMethod: attempt.payment_method,
    saveForLater: attempt.purpose === 'first_installment',
    installments: attempt.installments,
  })
  const card = { token: attempt.payment_method, brand: attempt.card_brand, last4: attempt.card_last4 }
  return { result, card, attemptId: attempt.id, installments: attempt.installments }
}

/**
 * The worker's reconciliation of a first charge whose outcome was never recorded (the database
 * failed after the gateway answered): the stored attempt is sent again (the gateway answers it from
 * the first call), then `record` writes its outcome, once, with its event. `item` is what it
 * charged (installment 1, an annual plan), read before the gateway is called.
 */
export async function reconcileAttempt<Item>(
  db: Db,
  gateway: PaymentGateway,
  attempt: CardAttemptRow,
  item: Item | undefined,
  record: (trx: Trx, item: Item, charged: FirstCardCharge) => Promise<ChargeResult>,
): Promise<ChargeResult> {
  if (item === undefined) throw new Error(`card attempt ${attempt.id} names no ${attempt.purpose}`)
  const charged = await replayAttempt(gateway, attempt)
  return retryingTransaction(db, (trx) => record(trx, item, charged))
}

/**
 * Closes the charge's attempt in the transaction recording it. False: another caller replayed and
 * recorded it first, and this one must write nothing.
 */
export async function claimRecording(trx: Trx, charged: FirstCardCharge): Promise<boolean> {
  return charged.attemptId === null || closeAttempt(trx, charged.attemptId)
}

/**
 * The gateway approved a charge of something no longer payable (canceled meanwhile): money taken
 * for nothing, to refund by hand with the gateway's reference. A server fault on the API; the worker
 * logs it and closes the attempt.
 */
export class UnpayableChargeError extends Error {
  override name = 'UnpayableChargeError'

  constructor(
    what: string,
    readonly transactionId: string,
  ) {
    super(`Charge ${transactionId} approved for ${what}, which is no longer payable`)
  }
}

/**
 * First charges stored before `before` and never recorded: their calls are over (README, "Going
 * live: card payments through Stripe").
 */
export function findUnrecordedCharges(db: Db, before: string, limit: number): Promise<CardAttemptRow[]> {
  return findStaleAttempts(db, before, limit)
}

/** Gives up an attempt the worker cannot record (see UnpayableChargeError). */
export async function abandonAttempt(db: Db, id: number): Promise<void> {
  await retryingTransaction(db, (trx) => closeAttempt(trx, id))
}

/** A stored first-charge attempt, as the services settling one read it. */
export type { CardAttemptRow }
