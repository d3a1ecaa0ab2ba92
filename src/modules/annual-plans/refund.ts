import { daysBetween, formatDate } from '../../shared/time.js'

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
