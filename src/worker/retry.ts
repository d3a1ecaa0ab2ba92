import { nextAttemptOn } from '../modules/subscriptions/schedule.js'
import { addDays } from '../shared/time.js'

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
