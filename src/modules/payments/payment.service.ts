import type { Db, Reader, Trx } from '../../db/database.js'
import { retryingTransaction, type Transactor } from '../../db/transaction.js'
import { AppError } from '../../shared/errors.js'
import type { Clock } from '../../shared/time.js'
import type { ContractRef } from '../contracts/contract-reference.js'
import { GatewayRefusedError, GatewayUnavailableError } from './payment.errors.js'
import {
  type CardTestingScope,
  endTry,
  findGatewayCustomer,
  keepGatewayCustomer,
  lockContract,
  nthLatestDecline,
  startTry,
} from './payment.repository.js'
import type { ChargeResult, PaymentGateway } from './payment-gateway.js'

// The one gateway flow: every charge of an installment or an annual plan, by the API or by the
// recurrence, and every refund, claims its row, calls the gateway outside any transaction, then
// settles.

/** What the flow needs of the thing being charged (or refunded). */
export interface Charge<C, T> {
  /**
   * Holds the row until `until` if it can still be paid and is not held (`notHeld`): of concurrent
   * callers exactly one gets true. Runs in its own transaction, committed before the gateway call.
   */
  claim(trx: Trx, now: string, until: string): Promise<boolean>
  /** Ends this claim and only this one: a claim that ran out and was taken over stays its holder's. */
  release(trx: Trx, until: string): Promise<void>
  /** The gateway call. */
  charge(): Promise<C>
  /** Writes the outcome, approved or declined, to the row and the ledger, at the instant it came; `until`: the claim's. */
  settle(trx: Trx, charged: C, now: string, until: string): Promise<T>
  /** What the log names when a charge could not be recorded. */
  details: Record<string, unknown>
  /**
   * What the log keeps of a gateway call that took or paid money the database then failed to
   * record; null when it moved none (a decline). Default: a card charge's approval.
   */
  unrecorded?(charged: C): { message: string; details: Record<string, unknown> } | null
}

const cardUnrecorded = (charged: unknown) => {
  const { result } = charged as { result: ChargeResult }
  return result.approved
    ? {
        message: 'card charged but the charge could not be recorded',
        details: { transaction_id: result.transactionId },
      }
    : null
}

/** What a card payment needs besides the database, on the API and in the worker alike. */
export interface CardPaymentContext {
  /** The own gateway; null where card payments are off. */
  gateway: PaymentGateway | null
  clock: Clock
  /** The service zone: "today", due dates and expiry are calendar days there. */
  timeZone: string
  /** How long a claim holds the row (`AMPARO_PAYMENT_CLAIM_SECONDS`). */
  claimSeconds: number
  log: { error(details: object, message: string): void; warn(details: object, message: string): void }
}

export interface ChargeOptions<T> {
  /**
   * When the charge fails (the gateway unavailable, or an error): the API releases the claim at once,
   * so the partner's retry goes to the gateway again (false); the recurrence keeps it as its back-off
   * (true). Either way the retry sends the same idempotency key, which the gateway answers from the
   * first call if it made one.
   */
  holdOnGatewayError?: boolean
  /** Opens the settling transaction: the API's request stores its answer in it (plugins/unit-of-work.ts). */
  settleIn?: Transactor<T> | null
  /**
   * Settles a failed call instead of throwing, in a transaction of its own, and ends the claim
   * itself (a refund records the failure and when to try again).
   */
  onGatewayError?: (trx: Trx, error: unknown, now: string, until: string) => Promise<T>
}

/**
 * Claims, charges and settles once. Undefined when the claim was refused (paid, canceled or held
 * meanwhile: the caller says which). The claim lasts while the gateway call is in flight. Charged
 * but not recorded (the database failed after the gateway approved): the log gets what reconciling
 * it takes, and a first charge's stored attempt lets a retry or the worker record it.
 */
export async function chargeOnce<C, T>(
  db: Db,
  flow: Charge<C, T>,
  { clock, claimSeconds, log }: Pick<CardPaymentContext, 'clock' | 'claimSeconds' | 'log'>,
  { holdOnGatewayError = false, settleIn, onGatewayError }: ChargeOptions<T> = {},
): Promise<{ settled: T } | undefined> {
  const now = clock.now()
  const until = new Date(now.getTime() + claimSeconds * 1000).toISOString()
  if (!(await retryingTransaction(db, (trx) => flow.claim(trx, now.toISOString(), until)))) return undefined
  let charged: C
  try {
    charged = await atGateway(log, flow.details, flow.charge)
  } catch (error) {
    if (onGatewayError) {
      const failed = (trx: Trx) => onGatewayError(trx, error, clock.now().toISOString(), until)
      return { settled: await retryingTransaction(db, failed) }
    }
    if (!holdOnGatewayError) await retryingTransaction(db, (trx) => flow.release(trx, until))
    throw error
  }
  try {
    const settled = await (settleIn ?? ((work) => retryingTransaction(db, work)))(async (trx) => {
      const outcome = await flow.settle(trx, charged, clock.now().toISOString(), until)
      await flow.release(trx, until)
      return outcome
    })
    return { settled }
  } catch (error) {
    const unrecorded = (flow.unrecorded ?? cardUnrecorded)(charged)
    if (unrecorded) log.error({ err: error, ...flow.details, ...unrecorded.details }, unrecorded.message)
    throw error
  }
}

type GatewayLog = Pick<CardPaymentContext['log'], 'error'>

/**
 * A gateway call, with an error line when the gateway could not answer: what the call settles and
 * the gateway's own reference of the request (Stripe's request id), never the card.
 */
export async function atGateway<T>(
  log: GatewayLog,
  details: Record<string, unknown>,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof GatewayUnavailableError) {
      log.error({ ...details, ...error.gateway }, 'payment gateway unavailable')
    }
    if (error instanceof GatewayRefusedError) {
      log.error({ ...details, ...error.gateway, detail: error.detail }, 'payment gateway refused the request')
    }
    throw error
  }
}

/**
 * The gateway's customer of an Amparo customer: created at the first card payment (idempotency key
 * `customer-<id>`, so two first payments at once make one), then read from `gateway_customers`.
 */
export async function gatewayCustomerOf(
  db: Db,
  gateway: PaymentGateway,
  { customerId, partnerId }: { customerId: number; partnerId: number },
  { clock, log }: Pick<CardPaymentContext, 'clock' | 'log'>,
): Promise<string> {
  const known = await findGatewayCustomer(db, customerId)
  if (known) return known
  const reference = `customer-${customerId}`
  const created = await atGateway(log, { customer_id: customerId }, () =>
    gateway.createCustomer(customerId, reference, { partnerId, reference }),
  )
  const at = clock.now().toISOString()
  await retryingTransaction(db, (trx) => keepGatewayCustomer(trx, customerId, created, at))
  return (await findGatewayCustomer(db, customerId)) ?? created
}

/**
 * The number of this charge of an installment or plan: one more than the charges recorded for it.
 * A charge whose outcome is unknown records nothing, so its retry has the same number, and so the
 * same idempotency key; every recorded decline moves on to a new one. Read while the claim is held.
 */
export async function nextChargeNumber(
  db: Db,
  of: { installmentId: number } | { annualPlanId: number },
): Promise<number> {
  let query = db
    .selectFrom('payments')
    .select((eb) => eb.fn.countAll<number>().as('charges'))
    .where('route', 'in', ['card', 'recurrence'])
  query =
    'installmentId' in of
      ? query.where('installment_id', '=', of.installmentId)
      : query.where('annual_plan_id', '=', of.annualPlanId)
  return Number((await query.executeTakeFirstOrThrow()).charges) + 1
}

/** The gateway's reference of the approved card charge of an annual plan; none if it was not paid by card. */
export async function approvedCardCharge(db: Reader, annualPlanId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('payments')
    .select('transaction_id')
    .where('annual_plan_id', '=', annualPlanId)
    .where('route', '=', 'card')
    .where('outcome', '=', 'approved')
    .executeTakeFirst()
  return row?.transaction_id ?? undefined
}

// Card testing (README, "Going live: card payments through Stripe"): a stolen-card tester tries
// number after number on one contract, or across many. Declined attempts of the last day are
// counted from the database (the ledger's declined card payments, the declined card checks of card
// updates, and the attempts under way), so the limit holds across processes and simultaneous
// attempts, and checked before the gateway is called.

const DAY_MS = 86_400_000

export interface CardDeclineLimits {
  /** On one subscription or annual plan, a day. */
  perContract: number
  /** On one partner, a day. */
  perPartner: number
}

export interface CardTestingContext {
  clock: Clock
  cardDeclineLimits: CardDeclineLimits
}

/** 429 `rate_limited` with `Retry-After`: when the oldest decline that counts leaves the day. */
export class CardTestingLimitError extends AppError {
  override readonly retryAfterSeconds: number

  constructor(
    readonly scope: 'contract' | 'partner',
    retryAfterSeconds: number,
  ) {
    super(
      'rate_limited',
      scope === 'contract'
        ? 'Too many declined card attempts on this contract today: try again after Retry-After seconds.'
        : 'Too many declined card attempts on this partner today: try again after Retry-After seconds.',
    )
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/** A card attempt counted by the limit until it ends: `end` once its outcome is recorded (or none will be). */
export interface CardTry {
  end(): Promise<void>
}

/**
 * Starts a card attempt on `contract`, or refuses it once its or its partner's declines of the last
 * day, with the attempts under way, reach the limits. Counted and started in one transaction under
 * the contract's lock, so simultaneous attempts are counted one after the other.
 */
export async function startCardAttempt(
  db: Db,
  contract: ContractRef,
  partnerId: number,
  { clock, cardDeclineLimits }: CardTestingContext,
): Promise<CardTry> {
  const now = clock.now().getTime()
  const since = new Date(now - DAY_MS).toISOString()
  const checks: [CardTestingLimitError['scope'], CardTestingScope, number][] = [
    ['contract', contract, cardDeclineLimits.perContract],
    ['partner', { partnerId }, cardDeclineLimits.perPartner],
  ]
  const id = await retryingTransaction(db, async (trx) => {
    await lockContract(trx, contract)
    for (const [scope, of, limit] of checks) {
      const oldest = await nthLatestDecline(trx, of, since, limit)
      if (oldest) {
        const seconds = Math.ceil((Date.parse(oldest) + DAY_MS - now) / 1000)
        throw new CardTestingLimitError(scope, Math.max(1, seconds))
      }
    }
    return startTry(trx, contract, partnerId, { at: new Date(now).toISOString(), since })
  })
  // An attempt whose end is lost (the database away) counts as a decline for the day: the safe side.
  return { end: () => retryingTransaction(db, (trx) => endTry(trx, id)).catch(() => {}) }
}
