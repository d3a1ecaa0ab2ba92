import { daysBetween } from '../../shared/time.js'

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
 *   cent, where the confirmation day counts as used and the term is 365 or 366 days.
 */
export function refundAmount({ premium, paidOn, startsOn, endsOn, confirmedOn }: RefundInput): number {
  if (!paidOn || !startsOn || !endsOn) return 0
  if (daysBetween(paidOn, confirmedOn) <= REGRET_DAYS) return premium
  const term = daysBetween(startsOn, endsOn)
  const left = Math.min(term, Math.max(0, daysBetween(confirmedOn, endsOn)))
  const exact = BigInt(premium) * BigInt(left)
  return Number((exact * 2n + BigInt(term)) / (2n * BigInt(term)))
}
