import { formatDate } from '../../shared/time.js'

/**
 * The policy number of a plan paid at `paidAt`: `AMP-<year of payment>-<id, at least 6 digits>`
 * (`AMP-2026-000042`). Derived from the plan's id, so it is unique without a counter to race on
 * and the same however many times a payment is retried; the year is the service zone's.
 */
export function policyNumber(planId: number, paidAt: string, timeZone: string): string {
  const year = formatDate(paidAt, timeZone).slice(0, 4)
  return `AMP-${year}-${String(planId).padStart(6, '0')}`
}
