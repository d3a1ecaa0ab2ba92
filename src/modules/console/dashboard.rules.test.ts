import { describe, expect, it } from 'vitest'
import {
  addMonths,
  asCents,
  byMonth,
  hourOf,
  lossRatio,
  monthOf,
  monthSpans,
  monthsOf,
  periodOf,
} from './dashboard.rules.js'

const SP = 'America/Sao_Paulo'

describe('monthOf (in the service zone)', () => {
  it.each([
    ['2026-11-30T23:59:59.999Z', SP, '2026-11'],
    // 22:00 in São Paulo on 31 January: still January there, already February in UTC.
    ['2027-02-01T01:00:00.000Z', SP, '2027-01'],
    ['2027-02-01T01:00:00.000Z', 'UTC', '2027-02'],
    ['2026-12-01T02:59:59.999Z', SP, '2026-11'],
    ['2026-12-01T03:00:00.000Z', SP, '2026-12'],
    ['2026-01-01T02:59:59.000-03:00', SP, '2026-01'],
    ['2025-12-31T21:00:00.000-03:00', SP, '2025-12'],
  ])('%s in %s → %s', (instant, zone, month) => expect(monthOf(instant, zone)).toBe(month))
})

describe('monthSpans and hourOf', () => {
  it('bounds each month by 00:00 of its first day in the zone', () => {
    expect(monthSpans('2026-11', '2027-01', SP)).toEqual([
      { month: '2026-11', start: '2026-11-01T03:00:00.000Z', end: '2026-12-01T03:00:00.000Z' },
      { month: '2026-12', start: '2026-12-01T03:00:00.000Z', end: '2027-01-01T03:00:00.000Z' },
      { month: '2027-01', start: '2027-01-01T03:00:00.000Z', end: '2027-02-01T03:00:00.000Z' },
    ])
    expect(monthSpans('2026-01', '2026-01', 'UTC')).toEqual([
      { month: '2026-01', start: '2026-01-01T00:00:00.000Z', end: '2026-02-01T00:00:00.000Z' },
    ])
  })

  it('files an instant under its UTC hour', () => {
    expect(hourOf('2026-12-01T03:00:00.000Z')).toBe('2026-12-01T03')
    expect(hourOf('2026-11-30T23:59:59.999-03:00')).toBe('2026-12-01T02')
  })
})

describe('addMonths and monthsOf', () => {
  it.each([
    ['2026-11', 1, '2026-12'],
    ['2026-12', 1, '2027-01'],
    ['2026-01', -1, '2025-12'],
    ['2026-03', -14, '2025-01'],
    ['2026-03', 0, '2026-03'],
  ])('%s %+d → %s', (month, delta, expected) => expect(addMonths(month, delta)).toBe(expected))

  it('lists both ends, across a year, and nothing for a reversed period', () => {
    expect(monthsOf('2026-11', '2027-02')).toEqual(['2026-11', '2026-12', '2027-01', '2027-02'])
    expect(monthsOf('2026-05', '2026-05')).toEqual(['2026-05'])
    expect(monthsOf('2026-05', '2026-04')).toEqual([])
  })
})

describe('periodOf', () => {
  const now = '2026-11-27T05:00:00.000Z'
  it.each([
    [{}, { from: '2025-12', to: '2026-11' }],
    [{ to: '2026-03' }, { from: '2025-04', to: '2026-03' }],
    [{ from: '2026-06' }, { from: '2026-06', to: '2026-11' }],
    [{ from: '2027-02' }, { from: '2027-02', to: '2027-02' }],
    [
      { from: '2026-01', to: '2026-01' },
      { from: '2026-01', to: '2026-01' },
    ],
    [
      { from: '2024-01', to: '2026-12' },
      { from: '2024-01', to: '2026-12' },
    ],
  ])('%j → %j', (query, period) => expect(periodOf(query, now, SP)).toEqual(period))

  it('ends by default on the month it is in the zone', () => {
    expect(periodOf({}, '2026-12-01T02:00:00.000Z', SP)).toEqual({ from: '2025-12', to: '2026-11' })
    expect(periodOf({}, '2026-12-01T02:00:00.000Z', 'UTC')).toEqual({ from: '2026-01', to: '2026-12' })
  })

  it.each([
    [{ from: '2026-13' }, 'from'],
    [{ from: '2026-1' }, 'from'],
    [{ to: 'nov' }, 'to'],
    [{ from: '2026-05', to: '2026-04' }, 'to'],
    [{ from: '2023-12', to: '2026-12' }, 'to'],
  ])('%j is refused under %s', (query, field) => expect(periodOf(query, now, SP)).toMatchObject({ field }))
})

describe('lossRatio', () => {
  it.each([
    [0, 0, null],
    [500, 0, null],
    [500, -100, null],
    [0, 1000, 0],
    [1000, 1000, 1],
    [2500, 1000, 2.5],
    [1, 3, 0.3333],
    [2, 3, 0.6667],
    // Half-up at the fifth decimal: 0.12345 → 0.1235.
    [12_345, 100_000, 0.1235],
    [6_234_999, 10_000_000, 0.6235],
    // Large figures stay exact (a year of a big partner, in cents).
    [987_654_321_00, 1_234_567_890_00, 0.8],
  ])('%d ÷ %d → %s', (paid, collected, ratio) => expect(lossRatio(paid, collected)).toBe(ratio))
})

describe('byMonth', () => {
  const months = ['2026-01', '2026-02', '2026-03']
  it('fills the months without sums with zeros, in order, and drops sums outside the period', () => {
    const sums = [
      { month: '2026-03', opened: 2, approved: 1 },
      { month: '2025-12', opened: 9, approved: 9 },
      { month: '2026-01', opened: 1, approved: 0 },
    ]
    expect(byMonth(months, sums, { opened: 0, approved: 0 })).toEqual([
      { month: '2026-01', opened: 1, approved: 0 },
      { month: '2026-02', opened: 0, approved: 0 },
      { month: '2026-03', opened: 2, approved: 1 },
    ])
  })

  it('adds up two sums of one month (a subscription and an annual plan written the same month)', () => {
    const sums = [
      { month: '2026-02', written_cents: 1000 },
      { month: '2026-02', written_cents: 250 },
    ]
    expect(byMonth(months, sums, { written_cents: 0 })[1]).toEqual({ month: '2026-02', written_cents: 1250 })
  })

  it('answers zeros for every month on an empty database', () => {
    expect(byMonth(months, [], { settled: 0 })).toEqual(months.map((month) => ({ month, settled: 0 })))
  })
})

describe('asCents', () => {
  it.each([
    [null, 0],
    [undefined, 0],
    ['123456789012', 123_456_789_012],
    [42, 42],
  ])('%j → %d', (value, cents) => expect(asCents(value)).toBe(cents))
})
