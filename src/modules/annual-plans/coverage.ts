import { startOfDayMonthsLater, startOfNextDay } from '../../shared/time.js'
import type { AnnualPlanStatus } from './annual-plan.table.js'

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
export function statusAt(
  plan: { status: AnnualPlanStatus; starts_at: string | null; ends_at: string | null },
  now: string,
): AnnualPlanStatus {
  const { status, starts_at, ends_at } = plan
  if (!['paid', 'protected', 'expired'].includes(status) || !starts_at || !ends_at) return status
  if (now >= ends_at) return 'expired'
  return now >= starts_at ? 'protected' : 'paid'
}
