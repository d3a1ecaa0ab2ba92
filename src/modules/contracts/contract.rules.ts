import type { PaymentChannel } from '../../db/tables/payment.js'
import type { PaidWith } from '../../db/tables/payment-code.js'
import { formatDate } from '../../shared/time.js'

// The pure rules every contract follows, whichever product it is (README, Claims and "Annual
// plans"): whether it was in force at a moment, and its policy number. Instants are UTC ISO strings
// (comparable as text), dates 'YYYY-MM-DD' in the service zone.

// — In force at a moment —

/** Installments due more than this many days before the loss must have been paid. */
export const GRACE_DAYS = 10

export interface SubscriptionCoverage {
  status: string
  /** Installment 1's payment; null while unpaid. */
  firstPaidAt: string | null
  /** The end of the last installment's month; null while unknown (never paid). */
  endsAt: string | null
  installments: { dueDate: string; paid: boolean }[]
}

/**
 * Whether a subscription covered a loss at `occurredAt` (`occurredOn`: its date in the service
 * zone): `pago` (or `expired` since, for a loss before its end), the loss at or after the second
 * installment 1 was paid in, and every installment due more than 10 days before the loss paid (by now).
 */
export function subscriptionInForce(
  s: SubscriptionCoverage,
  occurredAt: string,
  occurredOn: string,
): boolean {
  if (s.status !== 'pago' && s.status !== 'expired') return false
  // A loss is given to the second, so the payment's own second counts as after it.
  if (s.firstPaidAt === null || occurredAt.slice(0, 19) < s.firstPaidAt.slice(0, 19)) return false
  if (s.endsAt !== null && occurredAt >= s.endsAt) return false
  return s.installments.every((i) => i.paid || addDaysTo(i.dueDate, GRACE_DAYS) >= occurredOn)
}

const addDaysTo = (date: string, days: number) => {
  const d = new Date(`${date}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

export interface AnnualCoverage {
  startsAt: string | null
  endsAt: string | null
  /** When a confirmed cancellation ended it; null otherwise. */
  canceledAt: string | null
}

/** Whether an annual plan covered a loss at `occurredAt`: within its window and not canceled before. */
export function annualPlanInForce(p: AnnualCoverage, occurredAt: string): boolean {
  if (p.startsAt === null || p.endsAt === null) return false
  if (occurredAt < p.startsAt || occurredAt >= p.endsAt) return false
  return p.canceledAt === null || p.canceledAt > occurredAt
}

// — Policy number —

/**
 * The policy number of a contract that becomes paid at `paidAt`: `AMP-<year of payment>-<serial,
 * at least 6 digits>` (`AMP-2026-000042`). An annual plan's serial is its id, so its number is the
 * same however many times a payment is retried; a subscription draws one from the same sequence
 * (contract.service.ts, nextPolicyNumber), so no two contracts share one. The year is the service
 * zone's.
 */
export function policyNumber(serial: number, paidAt: string, timeZone: string): string {
  const year = formatDate(paidAt, timeZone).slice(0, 4)
  return `AMP-${year}-${String(serial).padStart(6, '0')}`
}

// — How it was paid —

/** The `paid_with` of a payment by its ledger channel: a card at the counter or by the recurrence is `card`, a notification `external`. */
export function paidWithOf(channel: Exclude<PaymentChannel, 'refund'>): PaidWith {
  return channel === 'notification' ? 'external' : 'card'
}
