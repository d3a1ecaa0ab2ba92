import { DateTime } from 'luxon'
import { addDays, addMonthsClamped, formatDate } from '../../shared/time.js'

// The subscription's calendar (README, Subscriptions), pure: dates are 'YYYY-MM-DD' in the service time zone.

export interface ScheduledInstallment {
  number: number
  amount: number
  due_date: string
}

/**
 * Installment k is due k−1 months after the contracting date, clamped to the month's end and
 * always counted from the contracting date (31 Jan → 28/29 Feb → 31 Mar, not 28 Mar).
 */
export function installmentSchedule(
  contractedOn: string,
  count: number,
  amount: number,
): ScheduledInstallment[] {
  return Array.from({ length: count }, (_, i) => ({
    number: i + 1,
    amount,
    due_date: addMonthsClamped(contractedOn, i),
  }))
}

/** Days after the due date on which a declined recurrence charge is tried again. */
export const RETRY_DAYS = [1, 3, 5] as const

/**
 * When to try again after `failedAttempts` declines of an installment due on `dueDate`, or null
 * when the retries are exhausted (the installment is then refused and the subscription canceled).
 */
export function nextAttemptOn(dueDate: string, failedAttempts: number): string | null {
  const days = RETRY_DAYS[failedAttempts - 1]
  return days === undefined ? null : addDays(dueDate, days)
}

/**
 * The day to charge again after the `failedAttempts`-th decline of an installment due on
 * `dueDate`, or null when the retries are exhausted. Never before tomorrow: a worker catching up
 * after downtime would otherwise charge the same card again within seconds for retry days that
 * have already passed.
 */
export function retryOn(dueDate: string, failedAttempts: number, today: string): string | null {
  const scheduled = nextAttemptOn(dueDate, failedAttempts)
  if (scheduled === null) return null
  const tomorrow = addDays(today, 1)
  return scheduled > tomorrow ? scheduled : tomorrow
}

/** A `pending` subscription whose first installment is unpaid this many days after contracting is canceled. */
export const PENDING_EXPIRY_DAYS = 30

/**
 * The instant before which a subscription was contracted 30 or more calendar days (service zone)
 * before `today`: 00:00 of day today − 29. Calendar days, like due dates and retries, so a run at
 * any hour of a day gives the same answer.
 */
export function expiryCutoff(today: string, timeZone: string): string {
  const day = addDays(today, 1 - PENDING_EXPIRY_DAYS)
  return DateTime.fromISO(day, { zone: timeZone }).toJSDate().toISOString()
}

/**
 * Whether a subscription contracted at `createdAt` is, at `now`, past the day on which the worker
 * cancels it if installment 1 is still unpaid. Paying installment 1 checks it too: a payment must
 * not activate what the worker would have canceled had it run on time.
 */
export function pastPendingExpiry(createdAt: string, now: Date, timeZone: string): boolean {
  return Date.parse(createdAt) < Date.parse(expiryCutoff(formatDate(now, timeZone), timeZone))
}

export const STATUS_LABELS = {
  pending: 'Pendente',
  paid: 'Pago',
  refused: 'Recusado',
  canceled: 'Cancelado',
} as const
