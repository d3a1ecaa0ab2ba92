import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction, type Transactor } from '../../db/transaction.js'
import { inProgressUntil, PaymentInProgressError } from './payment.errors.js'
import {
  type CardAttemptOf,
  type CardAttemptRow,
  closeAttempt,
  deleteAttempt,
  findKeyedAttempt,
  findOpenAttempt,
  findOpenAttemptByReference,
  findStaleAttempts,
  purgeRecordedAttempts,
  storeAttempt,
} from './payment.repository.js'
import type { CardData, ChargeResult, GatewayLabel, PaymentGateway, SavedCard } from './payment-gateway.js'

// A first charge (installment 1, an annual plan) is two gateway calls: the card becomes a payment
// method, then a PaymentIntent charges it. Between the two, the attempt is stored: the card itself
// is gone after the request, but the attempt is enough to send the same PaymentIntent call again,
// which the gateway answers from the first one (the same idempotency key), so a charge whose
// outcome was lost is recorded later, by a retry or the worker, and never made twice. The attempt
// keeps the request's Idempotency-Key: that key's retry answers the attempt's outcome, whoever
// records it (docs/decisions.md, Safe retries).

/** The partner's `Idempotency-Key` of a request, and the request's fingerprints (the current one first). */
export interface RequestKey {
  key: string
  fingerprints: string[]
}

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
  /** The request's key, kept with the attempt; null without one. */
  requestKey: RequestKey | null
}

const isKeyed = (attempt: CardAttemptRow, key: RequestKey | null): boolean =>
  key !== null &&
  attempt.request_key === key.key &&
  key.fingerprints.includes(attempt.request_fingerprint ?? '')

/** The card's visible part: the same card gets the same payment method and replays its attempt. */
export const cardMark = (card: CardData): string =>
  `${card.number.slice(-4)}-${String(card.expiryMonth).padStart(2, '0')}${card.expiryYear}`

/** The mark of the card `read` validates; null when it is not valid (nothing can match it). */
export function cardMarkOf(read: () => CardData): string | null {
  try {
    return cardMark(read())
  } catch {
    return null
  }
}

/** This request's attempt: made with its key and body, or, open, with the same card. */
const isOwn = (attempt: CardAttemptRow, key: RequestKey | null, mark: string | null): boolean =>
  isKeyed(attempt, key) || (attempt.recorded_at === null && mark !== null && attempt.card_mark === mark)

/**
 * The first charge of `plan` with `card`, called while its item is claimed. An attempt this
 * request left open (its answer was lost: the same key and body, or the same card) is replayed
 * instead: its outcome is this call's answer. Another card's open attempt (one that outlived its
 * claim) is never answered for this card: 409 until it is recorded (answeredEarlier does so).
 */
export async function chargeFirstCard(
  db: Db,
  gateway: PaymentGateway,
  card: CardData,
  plan: FirstChargePlan,
  now: () => string,
): Promise<FirstCardCharge> {
  const mark = cardMark(card)
  const open = await findOpenAttempt(db, plan.of)
  if (open && isOwn(open, plan.requestKey, mark)) return replayAttempt(gateway, open)
  if (open) throw new PaymentInProgressError()
  // The card's visible part in the key: a retry with the same card gets the same payment method
  // back, one with another card (after an unanswered first try) makes its own.
  const saved = await gateway.saveCard(card, `${plan.idempotencyKey}-payment-method-${mark}`, plan)
  if (!saved.approved) {
    return {
      result: { approved: false, declineCode: saved.declineCode, transactionId: null },
      card: null,
      attemptId: null,
      installments: plan.installments,
    }
  }
  const row = {
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
    request_key: plan.requestKey?.key ?? null,
    request_fingerprint: plan.requestKey?.fingerprints[0] ?? null,
    recorded_at: null,
    card_mark: mark,
  }
  const attempt = await retryingTransaction(db, (trx) => storeAttempt(trx, row))
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
 * The one reconciliation of a first charge whose outcome was never recorded (the database failed,
 * or the process died, after the gateway answered), by the worker or by a retry: the stored attempt
 * is sent again (the gateway answers it from the first call), then `record` writes its outcome,
 * once, with its event, in `settleIn` (the retry's request stores its answer there) or a
 * transaction of its own. `item` is what it charged (installment 1, an annual plan), read before
 * the gateway is called. A recorded attempt is sent again too: `record` then writes nothing and
 * answers its outcome.
 */
export async function reconcileAttempt<Item>(
  db: Db,
  gateway: PaymentGateway,
  attempt: CardAttemptRow,
  item: Item | undefined,
  record: (trx: Trx, item: Item, charged: FirstCardCharge) => Promise<ChargeResult>,
  settleIn?: Transactor<ChargeResult> | null,
): Promise<ChargeResult> {
  if (item === undefined) throw new Error(`card attempt ${attempt.id} names no ${attempt.purpose}`)
  const charged = await replayAttempt(gateway, attempt)
  return (settleIn ?? ((work) => retryingTransaction(db, work)))((trx) => record(trx, item, charged))
}

/** What a payment call needs to settle an earlier first charge of its item. */
export interface EarlierAttempts {
  of: CardAttemptOf
  requestKey: RequestKey | null
  /** The request's card (cardMarkOf). */
  cardMark: string | null
  /** Until when a claim holds the item (null: none), read now. */
  heldUntil: () => Promise<string | null>
  now: Date
  /** The product's reconcileAttempt of one attempt (the worker's), recording in `settleIn`. */
  reconcile: (attempt: CardAttemptRow, settleIn?: Transactor<ChargeResult> | null) => Promise<ChargeResult>
  settleIn?: Transactor<ChargeResult> | null
}

/**
 * Before a first charge, what earlier attempts decide (docs/decisions.md, Safe retries):
 * - one this request's key made answers the request with its outcome: reconciled at once (the
 *   gateway asked again, not the worker waited for), or, recorded already, answered as it was;
 * - one with the same card and no matching key is left to the charge, which replays it;
 * - another card's unrecorded attempt is waited for while its claim holds the item (409, with
 *   the seconds the claim has left), then reconciled here as the worker would, and the call goes on
 *   from what it recorded ('recorded': read the item again).
 * Null: nothing earlier; charge.
 */
export async function answeredEarlier(
  db: Db,
  { of, requestKey, cardMark: mark, heldUntil, now, reconcile, settleIn }: EarlierAttempts,
): Promise<{ own: ChargeResult } | 'recorded' | null> {
  const keyed = requestKey && (await findKeyedAttempt(db, of, requestKey.key))
  if (keyed && isKeyed(keyed, requestKey)) return { own: await reconcile(keyed, settleIn) }
  const open = await findOpenAttempt(db, of)
  // The same card without the key: the charge replays it once it holds the item (chargeFirstCard).
  if (!open || isOwn(open, null, mark)) return null
  const until = await heldUntil()
  if (until !== null && Date.parse(until) > now.getTime()) throw inProgressUntil(until, now)
  await reconcile(open)
  return 'recorded'
}

/**
 * Marks the charge's attempt recorded in the transaction recording it. False: another caller
 * replayed and recorded it first, and this one must write nothing.
 */
export async function claimRecording(trx: Trx, charged: FirstCardCharge, at: string): Promise<boolean> {
  return charged.attemptId === null || closeAttempt(trx, charged.attemptId, at)
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

/**
 * The unrecorded first charge a gateway's event is about (its partner and `amparo_reference`): the
 * event settles it at once, by the worker's reconciliation, instead of waiting for the worker.
 */
export function findUnrecordedChargeOf(
  db: Db,
  partnerId: number,
  reference: string,
): Promise<CardAttemptRow | undefined> {
  return findOpenAttemptByReference(db, partnerId, reference)
}

/** Gives up an attempt the worker cannot record (see UnpayableChargeError). */
export async function abandonAttempt(db: Db, id: number): Promise<void> {
  await retryingTransaction(db, (trx) => deleteAttempt(trx, id))
}

/** A recorded attempt is kept as long as its key's answer (24 h), then forgotten. */
const KEPT_MS = 24 * 60 * 60 * 1000

/** Forgets the attempts recorded more than 24 h before `now`; the worker's reconciliation runs it. */
export async function forgetRecordedAttempts(db: Db, now: Date): Promise<number> {
  const before = new Date(now.getTime() - KEPT_MS).toISOString()
  return retryingTransaction(db, (trx) => purgeRecordedAttempts(trx, before))
}

/** A stored first-charge attempt, as the services settling one read it. */
export type { CardAttemptRow }
