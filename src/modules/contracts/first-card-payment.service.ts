import type { Db, Trx } from '../../db/database.js'
import type { Transactor } from '../../db/transaction.js'
import { StateError } from '../../shared/errors.js'
import { type Clock, formatDate } from '../../shared/time.js'
import type { PartnerContext } from '../auth/partner-context.js'
import { CardDeclinedError, type CardInput, type ExpiryShape, requireCard } from '../payments/card.js'
import {
  answeredEarlier,
  type CardAttemptRow,
  cardMarkOf,
  chargeFirstCard,
  claimRecording,
  type FirstCardCharge,
  type FirstChargePlan,
  type RequestKey,
  reconcileAttempt,
  UnpayableChargeError,
} from '../payments/first-charge.service.js'
import { inProgressUntil } from '../payments/payment.errors.js'
import {
  type CardPaymentContext,
  type CardTestingContext,
  chargeOnce,
  gatewayCustomerOf,
  nextChargeNumber,
  startCardAttempt,
} from '../payments/payment.service.js'
import { type ChargeResult, cardGateway, type PaymentGateway } from '../payments/payment-gateway.js'
import type { ContractRef } from './contract-reference.js'

// The first payment of a contract by card (README, "Going live: card payments through Stripe"):
// installment 1 of a subscription, the premium of an annual plan. The flow is this one; each
// product says what it charges, how it holds and reads it, and how it records the outcome.

/** What the charge of an item is. */
export interface FirstChargeOf {
  purpose: FirstChargePlan['purpose']
  of: FirstChargePlan['of']
  /** The gateway's label of the payment (`annual-plan-<id>` …). */
  reference: string
  /** The prefix of the charge's operation key, `<prefix>-charge-<n>` (`installment-<id>` …). */
  keyPrefix: string
  amountCents: number
  /** The card issuer's installments (an annual plan's); 1: at once. */
  installments: number
  /** What the log names when the charge could not be recorded. */
  details: Record<string, unknown>
}

/**
 * How a product finds and records what a first charge charged (`Item`): the payment call and the
 * worker's reconciliation of a stored attempt share it.
 */
export interface FirstChargeRecorder<Item> {
  /** The item a stored attempt charged; undefined when it is gone. */
  itemOf(attempt: CardAttemptRow): Promise<Item | undefined>
  /**
   * Writes an approved charge (paid, with its events and ledger row); false when the item could no
   * longer be paid, which the claim should have ruled out (UnpayableChargeError).
   */
  approved(trx: Trx, item: Item, charged: FirstCardCharge, at: string): Promise<boolean>
  /** Writes a declined charge. */
  declined(
    trx: Trx,
    item: Item,
    declined: { declineCode: string; transactionId: string | null },
    at: string,
  ): Promise<void>
  /** What UnpayableChargeError names (`annual plan 12`). */
  name(item: Item): string
}

/**
 * Records the outcome of a first charge once (claimRecording): answers it, also when another
 * caller (a retry, the worker) recorded this same attempt first.
 */
async function recordFirstCharge<Item>(
  trx: Trx,
  recorder: FirstChargeRecorder<Item>,
  item: Item,
  charged: FirstCardCharge,
  at: string,
): Promise<ChargeResult> {
  const { result } = charged
  if (!(await claimRecording(trx, charged, at))) return result
  if (!result.approved) {
    await recorder.declined(trx, item, result, at)
    return result
  }
  // The claim keeps every other payment path away, so this means money was taken twice (or for a
  // contract canceled meanwhile): a server fault to investigate (and refund) with the gateway's
  // reference, which the log keeps.
  if (!(await recorder.approved(trx, item, charged, at))) {
    throw new UnpayableChargeError(recorder.name(item), result.transactionId)
  }
  return result
}

/** What a product supplies to the first card payment: `Item` is what it charges. */
export interface FirstCardPayment<Item> extends FirstChargeRecorder<Item> {
  contract: ContractRef
  partnerId: number
  customerId: number
  /** The card's expiry shape and the request's names of its fields (a 422 names them). */
  card: { expiry: ExpiryShape; fields: Record<'number' | 'expiry' | 'cvv', string> }
  /** What earlier first-charge attempts are of; null when there is nothing to charge. */
  attemptsOf: FirstChargePlan['of'] | null
  /** The item as it is at `now`: whether it can still be paid, and until when a claim holds it. */
  current(now: Date): Promise<{ payable: boolean; heldUntil: string | null }>
  /** The 422 message once the item can no longer be paid. */
  noLongerPayable: string
  /** The item to charge, checked payable at `now` (422 otherwise); `readAgain`: an earlier charge was just recorded. */
  payable(readAgain: boolean, now: Date): Promise<Item>
  charge(item: Item): FirstChargeOf
  claim(trx: Trx, item: Item, now: string, until: string): Promise<boolean>
  release(trx: Trx, item: Item, until: string): Promise<void>
}

export type FirstPaymentContext = CardPaymentContext &
  CardTestingContext & { settleIn?: Transactor<ChargeResult> | null; requestKey?: RequestKey | null }

/**
 * Pays a contract's first charge by card, after its product found it the partner's (404): the
 * partner's mode (422 `errors.gateway`), an earlier charge of this request's key (its outcome is
 * the answer) or another's unrecorded one (settled first: answeredEarlier), the item's state (422
 * `errors.status`), the card (422), the card-testing limits (429), then the charge (chargeOnce).
 * Declined: recorded by the product, then CardDeclinedError (402). Held by another call: 409.
 */
export async function payFirstByCard<Item>(
  db: Db,
  partner: PartnerContext,
  creditCard: CardInput,
  payment: FirstCardPayment<Item>,
  context: FirstPaymentContext,
): Promise<void> {
  const now = context.clock.now()
  const requestKey = context.requestKey ?? null
  const gateway = cardGateway(partner, context.gateway)
  const readCard = () =>
    requireCard(creditCard, formatDate(now, context.timeZone), payment.card.expiry, payment.card.fields)
  const earlier =
    payment.attemptsOf &&
    (await answeredEarlier(db, {
      of: payment.attemptsOf,
      requestKey,
      cardMark: cardMarkOf(readCard),
      heldUntil: async () => (await payment.current(now)).heldUntil,
      now,
      reconcile: (attempt, settleIn) =>
        reconcileFirstCharge(db, gateway, attempt, payment, context.clock, settleIn),
      settleIn: context.settleIn,
    }))
  if (earlier !== null && earlier !== 'recorded') {
    if (!earlier.own.approved) throw new CardDeclinedError(earlier.own.declineCode)
    return
  }
  const item = await payment.payable(earlier === 'recorded', now)
  const card = readCard()
  const attempt = await startCardAttempt(db, payment.contract, payment.partnerId, context)
  try {
    const customerId = await gatewayCustomerOf(
      db,
      gateway,
      { customerId: payment.customerId, partnerId: payment.partnerId },
      context,
    )
    const charge = payment.charge(item)
    const outcome = await chargeOnce(
      db,
      {
        claim: (trx, at, until) => payment.claim(trx, item, at, until),
        release: (trx, until) => payment.release(trx, item, until),
        charge: async () =>
          chargeFirstCard(
            db,
            gateway,
            card,
            {
              purpose: charge.purpose,
              of: charge.of,
              partnerId: payment.partnerId,
              reference: charge.reference,
              idempotencyKey: `${charge.keyPrefix}-charge-${await nextChargeNumber(db, charge.of)}`,
              amountCents: charge.amountCents,
              customerId,
              installments: charge.installments,
              requestKey,
            },
            () => context.clock.now().toISOString(),
          ),
        details: charge.details,
        settle: (trx, charged, at) => recordFirstCharge(trx, payment, item, charged, at),
      },
      context,
      { settleIn: context.settleIn },
    )
    if (!outcome) {
      const current = await payment.current(now)
      if (!current.payable) throw new StateError(payment.noLongerPayable)
      throw inProgressUntil(current.heldUntil, now)
    }
    if (!outcome.settled.approved) throw new CardDeclinedError(outcome.settled.declineCode)
  } finally {
    await attempt.end()
  }
}

/**
 * The reconciliation of a stored first charge (reconcileAttempt), by the worker or by a payment
 * call (answeredEarlier), recorded in `settleIn` when given.
 */
export async function reconcileFirstCharge<Item>(
  db: Db,
  gateway: PaymentGateway,
  attempt: CardAttemptRow,
  recorder: FirstChargeRecorder<Item>,
  clock: Clock,
  settleIn?: Transactor<ChargeResult> | null,
): Promise<ChargeResult> {
  const item = await recorder.itemOf(attempt)
  const record = (trx: Trx, found: Item, charged: FirstCardCharge) =>
    recordFirstCharge(trx, recorder, found, charged, clock.now().toISOString())
  return reconcileAttempt(db, gateway, attempt, item, record, settleIn)
}
