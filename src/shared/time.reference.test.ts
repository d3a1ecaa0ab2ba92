import fc from 'fast-check'
import { DateTime } from 'luxon'
import { describe, expect, it } from 'vitest'
import { runs } from '../../test/helpers/runs.js'
import { addMonthsClamped, formatTimestamp, parseLocalTimestamp } from './time.js'

// time.ts computes wall clocks from a cached offset per UTC day and month arithmetic by hand,
// for speed; these compare it, over generated inputs, with the straightforward implementations it
// replaced (Intl formatToParts on every call, luxon).

// One formatter a zone: building one costs far more than formatting, and is not what is compared.
const formatters = new Map<string, Intl.DateTimeFormat>()

function intlTimestamp(ms: number, zone: string): string {
  const parts: Record<string, string> = {}
  const formatter =
    formatters.get(zone) ??
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
  formatters.set(zone, formatter)
  for (const { type, value } of formatter.formatToParts(ms)) parts[type] = value
  return `${(parts.year ?? '').padStart(4, '0')}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`
}

function luxonAddMonths(date: string, months: number): string {
  return DateTime.fromISO(date, { zone: 'utc' }).plus({ months }).toISODate() as string
}

const ZONES = [
  'America/Sao_Paulo',
  'UTC',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'America/St_Johns',
  'Europe/London',
  'Pacific/Chatham',
  'America/Noronha',
  'Africa/Monrovia',
]
const SEED = 20261121
const MIN_MS = Date.UTC(1900, 0, 1)
const MAX_MS = Date.UTC(2100, 0, 1)

describe('formatTimestamp against Intl on every call', () => {
  it('agrees for instants 1900–2100 in zones with odd offsets and DST rules', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_MS, max: MAX_MS }), fc.constantFrom(...ZONES), (ms, zone) => {
        expect(formatTimestamp(new Date(ms).toISOString(), zone)).toBe(intlTimestamp(ms, zone))
      }),
      { seed: SEED, numRuns: runs(20_000) },
    )
  })

  // ≈ 4 s alone on a slow 2-core machine: past vitest's 20 s when the whole suite shares the cores.
  it('agrees around every transition of every zone above, 1900–2100', () => {
    // Steps of 6 days find every change (1,349 of them, as daily steps do): no two transitions of
    // these zones are under 6.9 days apart (the closest: Noronha, October 2000). Daily steps took
    // 4 times as long. St. John's has dozens off the quarter hour (00:01 local).
    const offsetAt = (ms: number, zone: string) => DateTime.fromMillis(ms, { zone }).offset
    const step = 6 * 86_400_000
    for (const zone of ZONES) {
      let previous = offsetAt(MIN_MS, zone)
      for (let ms = MIN_MS; ms < MAX_MS; ms += step) {
        const offset = offsetAt(ms, zone)
        if (offset === previous) continue
        previous = offset
        // The exact second of the change, by bisection, then the instants around it.
        let [low, high] = [ms - step, ms]
        while (high - low > 1000) {
          const mid = low + Math.floor((high - low) / 2000) * 1000
          if (offsetAt(mid, zone) === offset) high = mid
          else low = mid
        }
        for (const delta of [-900_000, -60_000, -2000, -1000, -1, 0, 1000, 2000, 60_000, 900_000]) {
          const instant = high + delta
          expect(formatTimestamp(new Date(instant), zone)).toBe(intlTimestamp(instant, zone))
        }
      }
    }
  }, 120_000)

  it('still refuses an invalid instant or an unknown zone', () => {
    expect(() => formatTimestamp('not a date', 'UTC')).toThrow(RangeError)
    expect(() => formatTimestamp('2026-01-01T00:00:00Z', 'Mars/Olympus')).toThrow(RangeError)
  })
})

describe('parseLocalTimestamp against luxon', () => {
  const luxonParse = (text: string, zone: string) => {
    const local = DateTime.fromFormat(text, 'yyyy-MM-dd HH:mm:ss', { zone })
    return local.isValid ? local.toUTC().toISO() : null
  }

  it('agrees for wall times 1900–2100, impossible ones included', () => {
    const part = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'))
    const text = fc
      .tuple(fc.integer({ min: 1900, max: 2100 }), part(12), part(31), part(24), part(59), part(59))
      .map(([y, mo, d, h, mi, s]) => `${y}-${mo}-${d} ${h}:${mi}:${s}`)
    fc.assert(
      fc.property(text, fc.constantFrom(...ZONES), (t, zone) => {
        expect(parseLocalTimestamp(t, zone)).toBe(luxonParse(t, zone))
      }),
      { seed: SEED, numRuns: runs(20_000) },
    )
  })

  it('agrees on the wall times around every transition of these zones, 1990–2040', () => {
    // Each change found by 6-day steps and bisection (as above), then the wall times shown for
    // three hours either side of it, which include those it skips or repeats.
    const offsetAt = (ms: number, zone: string) => DateTime.fromMillis(ms, { zone }).offset
    const step = 6 * 86_400_000
    for (const zone of ZONES) {
      let previous = offsetAt(Date.UTC(1990, 0, 1), zone)
      for (let ms = Date.UTC(1990, 0, 1); ms < Date.UTC(2040, 0, 1); ms += step) {
        const offset = offsetAt(ms, zone)
        if (offset === previous) continue
        let [low, high] = [ms - step, ms]
        while (high - low > 1000) {
          const mid = low + Math.floor((high - low) / 2000) * 1000
          if (offsetAt(mid, zone) === offset) high = mid
          else low = mid
        }
        for (let delta = -3 * 3_600_000; delta <= 3 * 3_600_000; delta += 5 * 60_000) {
          const wall = new Date(high + delta + previous * 60_000).toISOString()
          const text = `${wall.slice(0, 10)} ${wall.slice(11, 19)}`
          expect(parseLocalTimestamp(text, zone)).toBe(luxonParse(text, zone))
        }
        previous = offset
      }
    }
  }, 120_000)
})

describe('addMonthsClamped against luxon', () => {
  const date = fc
    .integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 11, 31) })
    .map((ms) => new Date(ms).toISOString().slice(0, 10))

  it('agrees for dates 1900–2100 and −600…600 months', () => {
    fc.assert(
      fc.property(date, fc.integer({ min: -600, max: 600 }), (d, months) => {
        expect(addMonthsClamped(d, months)).toBe(luxonAddMonths(d, months))
      }),
      { seed: SEED, numRuns: runs(20_000) },
    )
  })

  it('clamps to the month end, leap years included', () => {
    expect(addMonthsClamped('2026-01-31', 1)).toBe('2026-02-28')
    expect(addMonthsClamped('2024-01-31', 1)).toBe('2024-02-29')
    expect(addMonthsClamped('2100-01-31', 1)).toBe('2100-02-28')
    expect(addMonthsClamped('2000-01-31', 1)).toBe('2000-02-29')
    expect(addMonthsClamped('2026-03-31', -1)).toBe('2026-02-28')
    expect(addMonthsClamped('2026-12-15', 1)).toBe('2027-01-15')
  })

  it('refuses impossible dates and fractional months, as luxon did', () => {
    for (const bad of [
      '2026-02-29',
      '2026-02-30',
      '2026-13-01',
      '2026-00-10',
      '2026-04-31',
      '26-01-01',
      '',
    ]) {
      expect(() => addMonthsClamped(bad, 1)).toThrow(RangeError)
    }
    expect(() => addMonthsClamped('2026-01-01', 1.5)).toThrow(RangeError)
  })
})
