import { DateTime, IANAZone } from 'luxon'

// Instants are stored and compared as UTC ISO strings; only the edge renders them in the service zone.

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/

// Every timestamp in every response goes through formatTimestamp, and building an Intl.DateTimeFormat
// costs far more than using one, so each zone gets exactly one, reused forever (zones come from config).
const formatters = new Map<string, Intl.DateTimeFormat>()

interface LocalParts {
  year: string
  month: string
  day: string
  hour: string
  minute: string
  second: string
}

/** `'YYYY-MM-DD HH:MM:SS'` wall-clock time of the instant in `zone`. */
export function formatTimestamp(isoUtc: string | Date, zone: string): string {
  const p = localParts(isoUtc, zone)
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`
}

/** `'YYYY-MM-DD'`: the calendar date of the instant in `zone`. */
export function formatDate(isoUtc: string | Date, zone: string): string {
  const p = localParts(isoUtc, zone)
  return `${p.year}-${p.month}-${p.day}`
}

/**
 * Calendar-month arithmetic clamped to the month end (2026-01-31 + 1 → 2026-02-28). Callers must
 * always offset from the original date: chaining would drift (01-31 → 02-28 → 03-28).
 */
export function addMonthsClamped(date: string, months: number): string {
  if (!Number.isInteger(months)) throw new RangeError(`months must be an integer, got ${months}`)
  const start = DATE_ONLY.test(date) ? DateTime.fromISO(date, { zone: 'utc' }) : DateTime.invalid('format')
  if (!start.isValid) throw new RangeError(`Invalid date (expected YYYY-MM-DD): ${date}`)
  // Luxon's month arithmetic already clamps to the last day of the target month.
  return start.plus({ months }).toISODate() as string
}

/** UTC ISO instant of 00:00 in `zone` on the local calendar day after the given instant. */
export function startOfNextDay(isoUtc: string, zone: string): string {
  const instant = DateTime.fromISO(isoUtc, { zone: 'utc' })
  if (!instant.isValid) throw new RangeError(`Invalid instant: ${isoUtc}`)
  const local = instant.setZone(zone)
  if (!local.isValid) throw new RangeError(`Invalid time zone: ${zone}`)
  // Step the calendar day before truncating, so a DST change at midnight still yields that day's start.
  return local.plus({ days: 1 }).startOf('day').toUTC().toISO() as string
}

/** UTC ISO instant `months` calendar months after `isoUtc`, counted on the wall clock of `zone`. */
export function addMonthsInZone(isoUtc: string, months: number, zone: string): string {
  const instant = DateTime.fromISO(isoUtc, { zone: 'utc' })
  if (!instant.isValid) throw new RangeError(`Invalid instant: ${isoUtc}`)
  return instant.setZone(zone).plus({ months }).toUTC().toISO() as string
}

/** Whole calendar days from date `a` to date `b` (`YYYY-MM-DD`); negative when `b` is earlier. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000)
}

/** True for IANA zone names the runtime knows (`America/Sao_Paulo`, `UTC`); false for offsets like `+03:00`. */
export function isValidTimeZone(zone: string): boolean {
  return IANAZone.isValidZone(zone)
}

function localParts(isoUtc: string | Date, zone: string): LocalParts {
  const instant = isoUtc instanceof Date ? isoUtc : new Date(isoUtc)
  if (Number.isNaN(instant.getTime())) throw new RangeError(`Invalid instant: ${String(isoUtc)}`)
  const parts: LocalParts = { year: '', month: '', day: '', hour: '', minute: '', second: '' }
  for (const { type, value } of formatterFor(zone).formatToParts(instant)) {
    if (type in parts) parts[type as keyof LocalParts] = value
  }
  // Intl drops leading zeros on years before 1000; the fixed-width format keeps four digits.
  parts.year = parts.year.padStart(4, '0')
  return parts
}

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone)
  if (!formatter) {
    // Throws RangeError on an unknown zone, before anything is cached.
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      // h23, not hour12: false, which some ICU versions render as "24" at midnight.
      hourCycle: 'h23',
    })
    formatters.set(zone, formatter)
  }
  return formatter
}
