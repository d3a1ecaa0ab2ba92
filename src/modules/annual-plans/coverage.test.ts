import { describe, expect, it } from 'vitest'
import { coverageWindow, statusAt } from './coverage.js'

const SP = 'America/Sao_Paulo'

describe('coverageWindow', () => {
  it('starts at 00:00 São Paulo of the day after payment and lasts 12 months', () => {
    // 2026-11-21 10:00 in São Paulo
    expect(coverageWindow('2026-11-21T13:00:00.000Z', SP)).toEqual({
      startsAt: '2026-11-22T03:00:00.000Z',
      endsAt: '2027-11-22T03:00:00.000Z',
    })
  })

  it('a payment at 23:59:59 local starts cover the next day; at 00:00:00 the day after that', () => {
    expect(coverageWindow('2026-11-22T02:59:59.000Z', SP).startsAt).toBe('2026-11-22T03:00:00.000Z')
    expect(coverageWindow('2026-11-22T03:00:00.000Z', SP).startsAt).toBe('2026-11-23T03:00:00.000Z')
  })

  it('a cover starting on a day without a midnight still ends at 00:00 a year later', () => {
    // Santiago moves its clocks from 00:00 to 01:00 on 2026-09-06 (the day starts at 01:00, UTC−3);
    // 2027-09-06 has its midnight (DST began on 5 September), 03:00 UTC.
    expect(coverageWindow('2026-09-05T15:00:00.000Z', 'America/Santiago')).toEqual({
      startsAt: '2026-09-06T04:00:00.000Z',
      endsAt: '2027-09-06T03:00:00.000Z',
    })
  })

  it('a cover starting on a leap day ends on 28 February', () => {
    expect(coverageWindow('2028-02-28T15:00:00.000Z', SP)).toEqual({
      startsAt: '2028-02-29T03:00:00.000Z',
      endsAt: '2029-02-28T03:00:00.000Z',
    })
  })
})

describe('statusAt', () => {
  const plan = {
    status: 'paid' as const,
    starts_at: '2026-11-22T03:00:00.000Z',
    ends_at: '2027-11-22T03:00:00.000Z',
  }

  it.each([
    ['before the cover starts', '2026-11-22T02:59:59.999Z', 'paid'],
    ['at 00:00:00 local of the start day', '2026-11-22T03:00:00.000Z', 'protected'],
    ['during the cover', '2027-06-01T12:00:00.000Z', 'protected'],
    ['the last second of cover', '2027-11-22T02:59:59.999Z', 'protected'],
    ['at the end', '2027-11-22T03:00:00.000Z', 'expired'],
  ])('%s → %s', (_label, now, expected) => {
    expect(statusAt(plan, now)).toBe(expected)
    expect(statusAt({ ...plan, status: 'protected' }, now)).toBe(expected)
  })

  it('does not move awaiting_payment or canceled plans', () => {
    expect(statusAt({ ...plan, status: 'canceled' }, '2030-01-01T00:00:00.000Z')).toBe('canceled')
    expect(
      statusAt({ status: 'awaiting_payment', starts_at: null, ends_at: null }, '2030-01-01T00:00:00.000Z'),
    ).toBe('awaiting_payment')
  })
})
