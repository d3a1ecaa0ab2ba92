import type { Db } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import type { Clock } from '../../shared/clock.js'
import { AppError } from '../../shared/errors.js'
import type { ContractRef } from '../contracts/contract-reference.js'
import {
  type CardTestingScope,
  endTry,
  lockContract,
  nthLatestDecline,
  startTry,
} from './payment.repository.js'

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
