import { describe, expect, it } from 'vitest'
import {
  addDays,
  addMonthsClamped,
  formatDate,
  formatTimestamp,
  isValidTimeZone,
  parseLocalTimestamp,
  startOfNextDay,
} from './time.js'

const SP = 'America/Sao_Paulo'
const LISBON = 'Europe/Lisbon'

describe('formatTimestamp', () => {
  it('renders the wall-clock time in the zone', () => {
    expect(formatTimestamp('2026-11-21T17:04:05.000Z', SP)).toBe('2026-11-21 14:04:05')
    expect(formatTimestamp('2026-11-21T17:04:05.000Z', 'UTC')).toBe('2026-11-21 17:04:05')
  })

  it('accepts a Date', () => {
    expect(formatTimestamp(new Date('2026-11-21T17:04:05.000Z'), SP)).toBe('2026-11-21 14:04:05')
  })

  it('renders midnight as 00, not 24', () => {
    expect(formatTimestamp('2026-11-21T03:00:00.000Z', SP)).toBe('2026-11-21 00:00:00')
    expect(formatTimestamp('2026-11-21T02:59:59.000Z', SP)).toBe('2026-11-20 23:59:59')
  })

  it('crosses the year boundary', () => {
    expect(formatTimestamp('2027-01-01T02:30:00.000Z', SP)).toBe('2026-12-31 23:30:00')
    expect(formatTimestamp('2027-01-01T03:00:00.000Z', SP)).toBe('2027-01-01 00:00:00')
  })

  it('follows DST in Europe/Lisbon', () => {
    // Winter: WET (UTC+0).
    expect(formatTimestamp('2026-01-15T12:00:00.000Z', LISBON)).toBe('2026-01-15 12:00:00')
    // Summer: WEST (UTC+1).
    expect(formatTimestamp('2026-07-15T12:00:00.000Z', LISBON)).toBe('2026-07-15 13:00:00')
    // Spring forward on 2026-03-29 at 01:00 UTC: 00:59:59 WET is followed by 02:00:00 WEST.
    expect(formatTimestamp('2026-03-29T00:59:59.000Z', LISBON)).toBe('2026-03-29 00:59:59')
    expect(formatTimestamp('2026-03-29T01:00:00.000Z', LISBON)).toBe('2026-03-29 02:00:00')
    // Fall back on 2026-10-25 at 01:00 UTC: 01:30 local happens twice.
    expect(formatTimestamp('2026-10-25T00:30:00.000Z', LISBON)).toBe('2026-10-25 01:30:00')
    expect(formatTimestamp('2026-10-25T01:30:00.000Z', LISBON)).toBe('2026-10-25 01:30:00')
  })

  it("follows a transition off the quarter hour (St. John's sprang forward at 00:01 until 2011)", () => {
    const stJohns = 'America/St_Johns'
    expect(formatTimestamp('2007-03-11T03:30:59.000Z', stJohns)).toBe('2007-03-11 00:00:59')
    expect(formatTimestamp('2007-03-11T03:31:00.000Z', stJohns)).toBe('2007-03-11 01:01:00')
    expect(formatTimestamp('2007-03-11T03:44:00.000Z', stJohns)).toBe('2007-03-11 01:14:00')
  })

  it('keeps local mean time offsets to the second, and four-digit years before 1000', () => {
    expect(formatTimestamp('1913-12-31T23:59:59.000Z', SP)).toBe('1913-12-31 20:53:31') // LMT −03:06:28
    expect(formatTimestamp('0999-12-31T23:59:59.000Z', 'UTC')).toBe('0999-12-31 23:59:59')
    expect(formatDate('0999-06-01T12:00:00.000Z', SP)).toBe('0999-06-01')
  })

  it('renders the last instants a Date can hold', () => {
    expect(formatTimestamp(new Date(8.64e15), 'UTC')).toBe('275760-09-13 00:00:00')
    expect(formatTimestamp(new Date(8.64e15), SP)).toBe('275760-09-12 21:00:00')
  })

  it('uses one formatter per zone without mixing zones', () => {
    const instant = '2026-07-15T12:00:00.000Z'
    expect(formatTimestamp(instant, SP)).toBe('2026-07-15 09:00:00')
    expect(formatTimestamp(instant, LISBON)).toBe('2026-07-15 13:00:00')
    expect(formatTimestamp(instant, SP)).toBe('2026-07-15 09:00:00')
  })

  it('rejects invalid instants and zones', () => {
    expect(() => formatTimestamp('not a date', SP)).toThrow(RangeError)
    expect(() => formatTimestamp(new Date(Number.NaN), SP)).toThrow(RangeError)
    expect(() => formatTimestamp('2026-11-21T17:04:05.000Z', 'Mars/Olympus')).toThrow(RangeError)
  })
})

describe('formatDate', () => {
  it('returns the calendar date in the zone', () => {
    expect(formatDate('2026-11-21T17:04:05.000Z', SP)).toBe('2026-11-21')
    expect(formatDate(new Date('2026-11-21T17:04:05.000Z'), SP)).toBe('2026-11-21')
  })

  it('switches date at local midnight, not UTC midnight', () => {
    expect(formatDate('2026-11-21T02:59:59.000Z', SP)).toBe('2026-11-20')
    expect(formatDate('2026-11-21T03:00:00.000Z', SP)).toBe('2026-11-21')
    expect(formatDate('2027-01-01T02:59:59.999Z', SP)).toBe('2026-12-31')
    expect(formatDate('2028-02-29T12:00:00.000Z', SP)).toBe('2028-02-29')
  })
})

describe('addMonthsClamped', () => {
  it('clamps to the end of shorter months', () => {
    expect(addMonthsClamped('2026-01-31', 1)).toBe('2026-02-28')
    expect(addMonthsClamped('2026-01-31', 2)).toBe('2026-03-31')
    expect(addMonthsClamped('2026-01-31', 3)).toBe('2026-04-30')
    expect(addMonthsClamped('2026-03-31', -1)).toBe('2026-02-28')
  })

  it('knows leap years', () => {
    expect(addMonthsClamped('2028-01-31', 1)).toBe('2028-02-29')
    expect(addMonthsClamped('2028-02-29', 12)).toBe('2029-02-28')
    expect(addMonthsClamped('2028-02-29', 48)).toBe('2032-02-29')
    expect(addMonthsClamped('2100-01-31', 1)).toBe('2100-02-28') // divisible by 100, not leap
    expect(addMonthsClamped('2000-01-31', 1)).toBe('2000-02-29') // divisible by 400, leap
  })

  it('crosses year boundaries', () => {
    expect(addMonthsClamped('2026-12-15', 1)).toBe('2027-01-15')
    expect(addMonthsClamped('2026-11-30', 3)).toBe('2027-02-28')
    expect(addMonthsClamped('2027-01-15', -1)).toBe('2026-12-15')
    expect(addMonthsClamped('2026-01-31', 25)).toBe('2028-02-29')
  })

  it('returns the same date for zero months', () => {
    expect(addMonthsClamped('2026-01-31', 0)).toBe('2026-01-31')
  })

  it('computed from the original date, the month end is not lost', () => {
    const months = [1, 2, 3, 4, 5].map((n) => addMonthsClamped('2026-01-31', n))
    expect(months).toEqual(['2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30'])
  })

  it('rejects malformed dates and fractional months', () => {
    expect(() => addMonthsClamped('2026-02-30', 1)).toThrow(RangeError)
    expect(() => addMonthsClamped('2026-1-31', 1)).toThrow(RangeError)
    expect(() => addMonthsClamped('2026-01-31T00:00:00Z', 1)).toThrow(RangeError)
    expect(() => addMonthsClamped('2026-01-31', 1.5)).toThrow(RangeError)
  })

  it('refuses results outside the years 0000–9999, which YYYY-MM-DD cannot hold', () => {
    expect(addMonthsClamped('9999-11-30', 1)).toBe('9999-12-30')
    expect(addMonthsClamped('0000-02-29', 12)).toBe('0001-02-28')
    expect(() => addMonthsClamped('9999-12-01', 1)).toThrow(RangeError)
    expect(() => addMonthsClamped('0000-01-15', -1)).toThrow(RangeError)
    expect(() => addMonthsClamped('2026-01-31', Number.MAX_SAFE_INTEGER)).toThrow(RangeError)
  })
})

describe('startOfNextDay', () => {
  it('returns the next local midnight as a UTC instant', () => {
    expect(startOfNextDay('2026-11-21T17:04:05.000Z', SP)).toBe('2026-11-22T03:00:00.000Z')
  })

  it('uses the local date at the 23:59:59 / 00:00:00 boundary', () => {
    expect(startOfNextDay('2026-11-21T02:59:59.000Z', SP)).toBe('2026-11-21T03:00:00.000Z')
    expect(startOfNextDay('2026-11-21T02:59:59.999Z', SP)).toBe('2026-11-21T03:00:00.000Z')
    expect(startOfNextDay('2026-11-21T03:00:00.000Z', SP)).toBe('2026-11-22T03:00:00.000Z')
  })

  it('crosses month, year and leap-day boundaries', () => {
    expect(startOfNextDay('2026-12-31T12:00:00.000Z', SP)).toBe('2027-01-01T03:00:00.000Z')
    expect(startOfNextDay('2027-01-01T02:00:00.000Z', SP)).toBe('2027-01-01T03:00:00.000Z')
    expect(startOfNextDay('2028-02-28T12:00:00.000Z', SP)).toBe('2028-02-29T03:00:00.000Z')
    expect(startOfNextDay('2028-02-29T12:00:00.000Z', SP)).toBe('2028-03-01T03:00:00.000Z')
  })

  it('follows the offset of the next day in a DST zone', () => {
    // 2026-03-28 is WET (UTC+0), 2026-03-29 00:00 is still WET: DST starts at 01:00 UTC.
    expect(startOfNextDay('2026-03-28T12:00:00.000Z', LISBON)).toBe('2026-03-29T00:00:00.000Z')
    // 2026-03-30 00:00 is WEST (UTC+1).
    expect(startOfNextDay('2026-03-29T12:00:00.000Z', LISBON)).toBe('2026-03-29T23:00:00.000Z')
  })

  it('rejects invalid instants and zones', () => {
    expect(() => startOfNextDay('nope', SP)).toThrow(RangeError)
    expect(() => startOfNextDay('2026-11-21T03:00:00.000Z', 'Mars/Olympus')).toThrow(RangeError)
  })
})

describe('parseLocalTimestamp', () => {
  it('reads a wall-clock time in the zone as a UTC instant', () => {
    expect(parseLocalTimestamp('2026-11-26 21:30:00', SP)).toBe('2026-11-27T00:30:00.000Z')
    expect(parseLocalTimestamp('2026-07-01 12:00:00', LISBON)).toBe('2026-07-01T11:00:00.000Z')
  })

  it('answers null for a time that does not exist or is not in the format', () => {
    for (const text of ['2026-02-30 10:00:00', '2026-11-26 25:00:00', '2026-11-26 12:60:00']) {
      expect(parseLocalTimestamp(text, SP)).toBeNull()
    }
    for (const text of [
      '2026-11-26T12:00:00',
      '2026-11-26 12:00',
      '2026-11-26 12:00:00Z',
      ' 2026-11-26 12:00:00',
    ]) {
      expect(parseLocalTimestamp(text, SP)).toBeNull()
    }
  })

  it('moves a time a DST change skips forward, as the clock was', () => {
    expect(parseLocalTimestamp('2026-03-29 01:30:00', LISBON)).toBe('2026-03-29T01:30:00.000Z')
  })
})

describe('isValidTimeZone', () => {
  it('accepts IANA zones', () => {
    expect(isValidTimeZone(SP)).toBe(true)
    expect(isValidTimeZone(LISBON)).toBe(true)
    expect(isValidTimeZone('UTC')).toBe(true)
  })

  it('rejects unknown names and empty strings', () => {
    expect(isValidTimeZone('Mars/Olympus')).toBe(false)
    expect(isValidTimeZone('')).toBe(false)
    expect(isValidTimeZone('local')).toBe(false)
  })
})

describe('addDays', () => {
  it('is calendar arithmetic', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01')
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29')
    expect(addDays('2026-11-21', 30)).toBe('2026-12-21')
  })
})
