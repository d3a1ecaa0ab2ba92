import { addDays, addMonthsClamped } from '../../shared/time.js'

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
