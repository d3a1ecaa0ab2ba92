import { DateTime, IANAZone } from 'luxon'

// Instants are stored and compared as UTC ISO strings; only the edge renders them in the service zone.

/** The time source; tests and the worker's schedule inject their own. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

export const nowIso = (clock: Clock): string => clock.now().toISOString()

/** When something happens: the UTC instant, and the zone whose calendar its dates are read in. */
export interface Moment {
  /** UTC ISO instant. */
  now: string
  timeZone: string
}

/**
 * A partner's time beside real time: what the partner does happens at `now` (its sandbox clock in
 * `test`; docs/decisions.md, Sandbox test clock); what another partner holds is judged at `realNow`, which no partner's
 * clock moves.
 */
export interface PartnerTime {
  now: string
  realNow: string
}

/** `base` moved `offsetSeconds` ahead: a sandbox partner's clock (docs/decisions.md, Sandbox test clock). */
export const shiftedClock = (base: Clock, offsetSeconds: number): Clock =>
  offsetSeconds === 0 ? base : { now: () => new Date(base.now().getTime() + offsetSeconds * 1000) }

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
  const year = Number(date.slice(0, 4))
  const month = Number(date.slice(5, 7))
  const day = Number(date.slice(8, 10))
  if (!DATE_ONLY.test(date) || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new RangeError(`Invalid date (expected YYYY-MM-DD): ${date}`)
  }
  const index = year * 12 + (month - 1) + months
  const targetYear = Math.floor(index / 12)
  const targetMonth = index - targetYear * 12 + 1
  if (targetYear < 0 || targetYear > 9999)
    throw new RangeError(`Date out of range: ${date} + ${months} months`)
  const targetDay = Math.min(day, daysInMonth(targetYear, targetMonth))
  return `${String(targetYear).padStart(4, '0')}-${two(targetMonth)}-${two(targetDay)}`
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n))

/** UTC ISO instant of 00:00 in `zone` on the local calendar day after the given instant. */
export function startOfNextDay(isoUtc: string, zone: string): string {
  const instant = DateTime.fromISO(isoUtc, { zone: 'utc' })
  if (!instant.isValid) throw new RangeError(`Invalid instant: ${isoUtc}`)
  const local = instant.setZone(zone)
  if (!local.isValid) throw new RangeError(`Invalid time zone: ${zone}`)
  // Step the calendar day before truncating, so a DST change at midnight still yields that day's start.
  return local.plus({ days: 1 }).startOf('day').toUTC().toISO() as string
}

/**
 * UTC ISO instant of the start of the local day `months` calendar months after the day of `isoUtc`
 * in `zone` (clamped to the month's end). The start of the day, not the same wall-clock time: a
 * day that began at 01:00 (a DST change at midnight) is followed a year later by one that may
 * well have its midnight.
 */
export function startOfDayMonthsLater(isoUtc: string, months: number, zone: string): string {
  const instant = DateTime.fromISO(isoUtc, { zone: 'utc' })
  if (!instant.isValid) throw new RangeError(`Invalid instant: ${isoUtc}`)
  return instant.setZone(zone).plus({ months }).startOf('day').toUTC().toISO() as string
}

/** Whole calendar days from date `a` to date `b` (`YYYY-MM-DD`); negative when `b` is earlier. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000)
}

/** True for IANA zone names the runtime knows (`America/Sao_Paulo`, `UTC`); false for offsets like `+03:00`. */
export function isValidTimeZone(zone: string): boolean {
  return IANAZone.isValidZone(zone)
}

// A zone's UTC offset changes at most once a day (tz database 1900–2100: the closest two transitions
// of any zone are 95 hours apart, zdump over every zone Intl knows), so it is looked up with Intl
// (slow: docs/benchmarks.md, Optimisations kept) at both ends of a UTC day and cached when they
// agree; the wall clock is then plain arithmetic. On the day of a transition the ends disagree: that day is remembered as
// such and its instants go through Intl. Days, not smaller buckets, so that timestamps spread over
// years (a list of old subscriptions) still hit the cache: 15-minute buckets missed on most calls.
const BUCKET_MS = 24 * 3_600_000
const MAX_BUCKETS_PER_ZONE = 100_000 // ≈ 270 years of days
const offsets = new Map<string, Map<number, number>>()
// Date's range ends at ±8.64e15 ms; a bucket end or a shifted instant beyond it would be invalid.
const ARITHMETIC_LIMIT_MS = 8.64e15 - 2 * 86_400_000

function localParts(isoUtc: string | Date, zone: string): LocalParts {
  const ms = isoUtc instanceof Date ? isoUtc.getTime() : Date.parse(isoUtc)
  if (Number.isNaN(ms)) throw new RangeError(`Invalid instant: ${String(isoUtc)}`)
  const offset = Math.abs(ms) < ARITHMETIC_LIMIT_MS ? offsetInBucket(ms, zone) : undefined
  if (offset === undefined) return intlParts(ms, zone)
  const local = new Date(ms + offset)
  return {
    year: String(local.getUTCFullYear()).padStart(4, '0'),
    month: two(local.getUTCMonth() + 1),
    day: two(local.getUTCDate()),
    hour: two(local.getUTCHours()),
    minute: two(local.getUTCMinutes()),
    second: two(local.getUTCSeconds()),
  }
}

/** The zone's offset (ms) throughout the instant's UTC day, or undefined if it changes that day. */
function offsetInBucket(ms: number, zone: string): number | undefined {
  let byBucket = offsets.get(zone)
  if (!byBucket) {
    formatterFor(zone) // throws RangeError on an unknown zone, before anything is cached
    byBucket = new Map()
    offsets.set(zone, byBucket)
  }
  const bucket = Math.floor(ms / BUCKET_MS)
  const cached = byBucket.get(bucket)
  if (cached !== undefined) return Number.isNaN(cached) ? undefined : cached
  const start = bucket * BUCKET_MS
  const offset = offsetAt(start, zone)
  const same = offset === offsetAt(start + BUCKET_MS - 1000, zone)
  if (byBucket.size >= MAX_BUCKETS_PER_ZONE) byBucket.clear()
  // NaN marks a day with a transition, so its two end lookups are not repeated on every call.
  byBucket.set(bucket, same ? offset : Number.NaN)
  return same ? offset : undefined
}

/** UTC offset of the zone at a whole-second instant, from Intl's wall clock. */
function offsetAt(ms: number, zone: string): number {
  const p = intlParts(ms, zone)
  const wall = new Date(0)
  wall.setUTCFullYear(Number(p.year), Number(p.month) - 1, Number(p.day))
  wall.setUTCHours(Number(p.hour), Number(p.minute), Number(p.second), 0)
  return wall.getTime() - ms
}

function intlParts(ms: number, zone: string): LocalParts {
  const parts: LocalParts = { year: '', month: '', day: '', hour: '', minute: '', second: '' }
  for (const { type, value } of formatterFor(zone).formatToParts(ms)) {
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

/** The calendar date `days` after `date` (both `YYYY-MM-DD`); negative goes back. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

const LOCAL_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

/**
 * `'YYYY-MM-DD HH:MM:SS'` wall-clock time in `zone` → UTC ISO instant; null when it is no such time
 * (a 30 February, a 25th hour). A time a DST change skips is moved forward, as the clock was.
 */
export function parseLocalTimestamp(text: string, zone: string): string | null {
  if (!LOCAL_TIMESTAMP.test(text)) return null
  const iso = text.replace(' ', 'T')
  const wall = Date.parse(`${iso}Z`)
  // A real calendar time away from the zone's offset changes is plain arithmetic over the cached
  // offsets; the rest (an impossible time, 24:00:00, a change near it) goes through luxon, whose
  // parse costs ≈ 13 times as much (docs/benchmarks.md, Optimisations kept).
  if (!Number.isNaN(wall) && new Date(wall).toISOString().startsWith(iso)) {
    const instant = instantOfWall(wall, zone)
    if (instant !== undefined) return new Date(instant).toISOString()
  }
  const local = DateTime.fromISO(iso, { zone })
  return local.isValid ? (local.toUTC().toISO() as string) : null
}

/** UTC ISO instant of 00:00 (or the first time after it a DST change leaves) on `date` in `zone`. */
export function startOfLocalDate(date: string, zone: string): string {
  const instant = DATE_ONLY.test(date) ? parseLocalTimestamp(`${date} 00:00:00`, zone) : null
  if (instant === null) throw new RangeError(`Invalid date (expected YYYY-MM-DD): ${date}`)
  return instant
}

const AROUND_MS = 3 * 3_600_000 // more than any DST change moves a clock (2 h)

/**
 * The instant (ms) when the clock in `zone` reads `wall` (ms, the wall time as if UTC), when the
 * zone's offset is the same for three hours either side: then it is the only such instant. Else undefined.
 */
function instantOfWall(wall: number, zone: string): number | undefined {
  if (Math.abs(wall) >= ARITHMETIC_LIMIT_MS - AROUND_MS) return undefined
  const offset = offsetInBucket(wall, zone)
  if (offset === undefined) return undefined
  const instant = wall - offset
  const steady = [instant - AROUND_MS, instant, instant + AROUND_MS].every(
    (ms) => offsetInBucket(ms, zone) === offset,
  )
  return steady ? instant : undefined
}
