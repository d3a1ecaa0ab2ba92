import type { AnnualPlanStatus, Payment } from '../../db/tables/annual-plan.js'
import { StateError } from '../../shared/errors.js'
import { daysBetween, formatDate, startOfDayMonthsLater, startOfNextDay } from '../../shared/time.js'
import { policyNumber } from '../contracts/contract.rules.js'

// The annual plan's pure rules (README, Annual plans): the coverage clock, the policy number, the
// cancellation protocol and the refund. Instants are UTC ISO strings, dates 'YYYY-MM-DD' in the
// service zone.

// — Coverage —

/** What the coverage clock reads of a plan. */
export interface CoverageFields {
  status: AnnualPlanStatus
  starts_at: string | null
  ends_at: string | null
}

// — Transitions (the only moves annual-plan-lifecycle.service.ts makes) —

/**
 * For each status, the statuses a plan may move to it from: paid once, `protected` and `expired`
 * as the coverage clock crosses its bounds (both at once when it passed both unseen), canceled
 * from any status but canceled (a request refuses an expired plan first, 422; a claim's settlement
 * leaves it as it is).
 */
export const ANNUAL_PLAN_FROM = {
  awaiting_payment: [],
  paid: ['awaiting_payment'],
  protected: ['paid'],
  expired: ['paid', 'protected'],
  canceled: ['awaiting_payment', 'paid', 'protected', 'expired'],
} as const satisfies Record<AnnualPlanStatus, readonly AnnualPlanStatus[]>

/** Whether a plan may move from `from` to `to`. */
export const annualPlanMayMove = (from: AnnualPlanStatus, to: AnnualPlanStatus): boolean =>
  (ANNUAL_PLAN_FROM[to] as readonly AnnualPlanStatus[]).includes(from)

/** Coverage lasts 12 months. */
export const TERM_MONTHS = 12

/**
 * The coverage window of a plan paid at `paidAt`: from 00:00 of the next day in the service time
 * zone to 00:00 of the same date 12 months later (a plan starting 29 Feb ends 28 Feb, 00:00). On a
 * day without a midnight (DST starting at 00:00) a bound is that day's first instant.
 */
export function coverageWindow(paidAt: string, timeZone: string): { startsAt: string; endsAt: string } {
  const startsAt = startOfNextDay(paidAt, timeZone)
  return { startsAt, endsAt: startOfDayMonthsLater(startsAt, TERM_MONTHS, timeZone) }
}

/**
 * The status the clock says: a paid plan is `paid` until its coverage starts, `protected` during
 * it and `expired` from its end. Other statuses do not move with time. Instants are UTC ISO
 * strings, which compare chronologically as text.
 */
export function statusAt(plan: CoverageFields, now: string): AnnualPlanStatus {
  const { status, starts_at, ends_at } = plan
  if (!['paid', 'protected', 'expired'].includes(status) || !starts_at || !ends_at) return status
  if (now >= ends_at) return 'expired'
  return now >= starts_at ? 'protected' : 'paid'
}

/** Only a plan awaiting payment (by the clock) can be paid; checked before anything is charged. */
export function assertAwaitingPayment(plan: CoverageFields, now: string): void {
  const status = statusAt(plan, now)
  if (status !== 'awaiting_payment') {
    throw new StateError(
      `The annual plan is ${status.replace('_', ' ')}: only a plan awaiting payment can be paid.`,
    )
  }
}

/**
 * What a payment confirmed at `now` writes: cover from the next local midnight, the policy number
 * and the certificate's verification code (random, drawn by the caller).
 */
export function paymentAt(planId: number, now: string, timeZone: string, certificateCode: string): Payment {
  const { startsAt, endsAt } = coverageWindow(now, timeZone)
  return {
    paidAt: now,
    startsAt,
    endsAt,
    policyNumber: policyNumber(planId, now, timeZone),
    certificateCode,
  }
}

// — Cancellation —

// RFC 4648 base32: uppercase letters and 2–7, nothing a reader confuses with 0, 1 or 8.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const LENGTH = 10

/**
 * A cancellation protocol, `CAN-` and 10 random base32 characters (50 bits): read out over the
 * phone by a customer, and not guessable from another one, as a sequence would be. `random` draws
 * the bytes (the caller's `randomBytes`).
 */
export function newProtocol(random: (size: number) => Uint8Array): string {
  const bytes = random(LENGTH)
  let code = ''
  // 256 is a multiple of 32, so the low five bits of each byte are uniform.
  for (const byte of bytes) code += ALPHABET[byte & 31]
  return `CAN-${code}`
}

/** The consumer's right of regret: a full refund within 7 calendar days of payment. */
export const REGRET_DAYS = 7
/** The refund is due 15 calendar days after the cancellation is confirmed. */
export const REFUND_DUE_DAYS = 15

export interface RefundInput {
  /** Cents. */
  premium: number
  /** Local calendar dates (`YYYY-MM-DD`, service time zone); null when the plan was never paid. */
  paidOn: string | null
  startsOn: string | null
  endsOn: string | null
  confirmedOn: string
}

/**
 * The refund of a cancelled annual plan, in cents:
 * - never paid → 0;
 * - confirmed within 7 calendar days of the payment date → the full premium;
 * - otherwise pro rata temporis: premium × days of cover left ÷ days of the term, half-up to the
 *   cent, counted from the confirmation day, which is refunded (cover ends at the confirmation,
 *   so that day is not the customer's to use), over a term of 365 or 366 days.
 */
export function refundAmount({ premium, paidOn, startsOn, endsOn, confirmedOn }: RefundInput): number {
  if (!paidOn || !startsOn || !endsOn) return 0
  if (daysBetween(paidOn, confirmedOn) <= REGRET_DAYS) return premium
  const term = daysBetween(startsOn, endsOn)
  const left = Math.min(term, Math.max(0, daysBetween(confirmedOn, endsOn)))
  const exact = BigInt(premium) * BigInt(left)
  return Number((exact * 2n + BigInt(term)) / (2n * BigInt(term)))
}

export interface RefundablePlan {
  premium: number
  /** UTC ISO instants; null while unpaid. */
  paid_at: string | null
  starts_at: string | null
  ends_at: string | null
}

/** `refundAmount` of a plan confirmed at the instant `confirmedAt`, on the calendar of `timeZone`. */
export function refundAt(plan: RefundablePlan, confirmedAt: string, timeZone: string): number {
  const day = (instant: string | null) => (instant === null ? null : formatDate(instant, timeZone))
  return refundAmount({
    premium: plan.premium,
    paidOn: day(plan.paid_at),
    startsOn: day(plan.starts_at),
    endsOn: day(plan.ends_at),
    confirmedOn: formatDate(confirmedAt, timeZone),
  })
}

// — Paying the refund —

/** A refund the gateway keeps failing is retried this long, then `failed` (docs/decisions.md, Annual plans). */
export const REFUND_RETRY_HOURS = 72
const FIRST_RETRY_MINUTES = 5
const LONGEST_RETRY_MINUTES = 360

/**
 * When to try a refund again after its `attempts`-th failed attempt at `now`: 5 minutes, doubling
 * each time up to 6 hours (17 attempts in the 3 days), the last one at `giveUpAt` itself. Null
 * once `giveUpAt` has come: the refund has failed.
 */
export function refundRetryAt(attempts: number, now: string, giveUpAt: string): string | null {
  if (now >= giveUpAt) return null
  const minutes = Math.min(FIRST_RETRY_MINUTES * 2 ** Math.max(0, attempts - 1), LONGEST_RETRY_MINUTES)
  const next = new Date(Date.parse(now) + minutes * 60_000).toISOString()
  return next < giveUpAt ? next : giveUpAt
}
