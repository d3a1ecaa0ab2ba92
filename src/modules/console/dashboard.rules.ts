import { formatDate, startOfLocalDate } from '../../shared/time.js'

// The operator dashboard's arithmetic (README, Operator console: the operator API behind the
// screens): months in the service's zone, the loss ratio's rounding, and zeros where nothing
// happened. The repositories sum; these decide.

/** `YYYY-MM`, a calendar month in the service's zone. */
export type Month = string

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/

/** The longest period the dashboard answers: three years of months. */
export const MAX_PERIOD_MONTHS = 36
/** The period when none is asked: the last 12 months, this one included. */
export const DEFAULT_PERIOD_MONTHS = 12

export const isMonth = (text: string): boolean => MONTH.test(text)

/** The month of an instant in `zone` (`2026-12-01T02:00:00Z` → `2026-11` in São Paulo, `2026-12` in UTC). */
export function monthOf(instant: string | Date, zone: string): Month {
  return formatDate(instant, zone).slice(0, 7)
}

/** `month` moved by `delta` months. */
export function addMonths(month: Month, delta: number): Month {
  const [year, m] = month.split('-').map(Number) as [number, number]
  const index = year * 12 + (m - 1) + delta
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`
}

/** Every month from `from` to `to`, both included, in order; empty when `to` is before `from`. */
export function monthsOf(from: Month, to: Month): Month[] {
  const months: Month[] = []
  for (let month = from; month <= to; month = addMonths(month, 1)) months.push(month)
  return months
}

/** A month of the period and the instants it runs between (UTC ISO): its start, the next one's. */
export interface MonthSpan {
  month: Month
  start: string
  end: string
}

/** Each month of the period with its instants: from 00:00 of its first day in `zone` to the next's. */
export function monthSpans(from: Month, to: Month, zone: string): MonthSpan[] {
  const starts = [...monthsOf(from, to), addMonths(to, 1)].map((m) => startOfLocalDate(`${m}-01`, zone))
  return monthsOf(from, to).map((month, i) => ({
    month,
    start: starts[i] as string,
    end: starts[i + 1] as string,
  }))
}

/**
 * The UTC hour (`YYYY-MM-DDTHH`) the kept premium sums (migration 0030) file an instant under, and
 * under which a month starting at that instant starts: exact for zones whole hours from UTC (all of
 * Brazil's); a zone off by half an hour files that half hour's premiums in the month it starts.
 */
export const hourOf = (instant: string): string => new Date(instant).toISOString().slice(0, 13)

export type PeriodCheck = { from: Month; to: Month } | { error: string; field: 'from' | 'to' }

/** The period asked for, or why it is refused; without `from`/`to`, the 12 months ending with `now`'s. */
export function periodOf(
  query: { from?: string; to?: string },
  now: string | Date,
  zone: string,
): PeriodCheck {
  if (query.from !== undefined && !isMonth(query.from))
    return { field: 'from', error: 'The from field must be a month, YYYY-MM.' }
  if (query.to !== undefined && !isMonth(query.to))
    return { field: 'to', error: 'The to field must be a month, YYYY-MM.' }
  const current = monthOf(now, zone)
  const to = query.to ?? (query.from === undefined ? current : maxMonth(query.from, current))
  const from = query.from ?? addMonths(to, 1 - DEFAULT_PERIOD_MONTHS)
  if (from > to) return { field: 'to', error: 'The to field must be a month at or after from.' }
  if (monthsOf(from, to).length > MAX_PERIOD_MONTHS)
    return { field: 'to', error: `The period must be at most ${MAX_PERIOD_MONTHS} months.` }
  return { from, to }
}

const maxMonth = (a: Month, b: Month) => (a > b ? a : b)

/**
 * Claims paid ÷ premiums collected, rounded half-up to 4 decimals (0.6235 is 62.35 %); null when
 * nothing was collected (no ratio, rather than a division by zero or an infinite one). Integer
 * arithmetic on cents, so the same figures always give the same ratio.
 */
export function lossRatio(claimsPaidCents: number, premiumsCollectedCents: number): number | null {
  if (premiumsCollectedCents <= 0) return null
  // In BigInt: a year of a large partner's cents × 10,000 passes 2^53.
  const [paid, collected] = [BigInt(claimsPaidCents), BigInt(premiumsCollectedCents)]
  const tenThousandths = (paid * 20_000n + collected) / (2n * collected)
  return Number(tenThousandths) / 10_000
}

/**
 * One entry per month of the period, in order, with `zero` for a month the sums did not mention
 * (and sums outside the period dropped): a chart's x axis never skips a month.
 */
export function byMonth<T extends object>(
  months: Month[],
  sums: readonly (T & { month: Month })[],
  zero: T,
): (T & { month: Month })[] {
  const found = new Map<Month, T & { month: Month }>()
  for (const sum of sums) {
    const current = found.get(sum.month)
    found.set(sum.month, current ? addUp(current, sum) : { ...sum })
  }
  return months.map((month) => found.get(month) ?? { ...zero, month })
}

/** Adds the numeric fields of `b` to those of `a` (same keys), keeping `a`'s others. */
function addUp<T extends object>(a: T, b: T): T {
  const sum = { ...a } as Record<string, unknown>
  for (const [key, value] of Object.entries(b)) {
    if (typeof value === 'number') sum[key] = (Number(sum[key]) || 0) + value
  }
  return sum as T
}

/** Sums of a database read as numbers: PostgreSQL answers bigint sums as strings, and null for none. */
export const asCents = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value))
