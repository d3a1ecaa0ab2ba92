import type { Db } from '../../db/database.js'
import type { Clock } from '../../shared/clock.js'
import { AppError } from '../../shared/errors.js'

// Card testing (README, "Going live: card payments through Stripe"): a stolen-card tester tries
// number after number on one contract, or across many. Declined attempts of the last day are
// counted from the database (the ledger's declined card payments and the declined card checks of
// card updates), so the limit holds across processes, and checked before the gateway is called.

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

export type ContractRef = { subscriptionId: number } | { annualPlanId: number }

/** Refuses a card attempt on `contract` once its or its partner's declines of the last day reach the limits. */
export async function refuseCardTesting(
  db: Db,
  contract: ContractRef,
  partnerId: number,
  { clock, cardDeclineLimits }: CardTestingContext,
): Promise<void> {
  const now = clock.now().getTime()
  const since = new Date(now - DAY_MS).toISOString()
  const checks: [CardTestingLimitError['scope'], Scope, number][] = [
    ['contract', contract, cardDeclineLimits.perContract],
    ['partner', { partnerId }, cardDeclineLimits.perPartner],
  ]
  for (const [scope, of, limit] of checks) {
    const oldest = await nthLatestDecline(db, of, since, limit)
    if (oldest) {
      const seconds = Math.ceil((Date.parse(oldest) + DAY_MS - now) / 1000)
      throw new CardTestingLimitError(scope, Math.max(1, seconds))
    }
  }
}

type Scope = ContractRef | { partnerId: number }

/**
 * The time of the `n`-th most recent declined attempt since `since` in `of`, if there were that
 * many: the limit is reached, and it frees up when that one is a day old.
 */
async function nthLatestDecline(db: Db, of: Scope, since: string, n: number): Promise<string | undefined> {
  let payments = db
    .selectFrom('payments')
    .select('created_at')
    .where('route', '=', 'card')
    .where('outcome', '=', 'declined')
    .where('created_at', '>', since)
  let checks = db
    .selectFrom('card_checks')
    .select('created_at')
    .where('outcome', '=', 'declined')
    .where('created_at', '>', since)
  if ('partnerId' in of) {
    payments = payments.where('partner_id', '=', of.partnerId)
    checks = checks.where('partner_id', '=', of.partnerId)
  } else if ('subscriptionId' in of) {
    payments = payments.where('subscription_id', '=', of.subscriptionId)
    checks = checks.where('subscription_id', '=', of.subscriptionId)
  } else {
    payments = payments.where('annual_plan_id', '=', of.annualPlanId)
  }
  const fromPayments = await payments.orderBy('created_at', 'desc').limit(n).execute()
  const fromChecks = 'annualPlanId' in of ? [] : await checks.orderBy('created_at', 'desc').limit(n).execute()
  const rows = [...fromPayments, ...fromChecks]
    .map((r) => new Date(r.created_at).toISOString())
    .sort((a, b) => b.localeCompare(a))
  return rows[n - 1]
}
