import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { AnnualPlanStatus } from '../../db/tables/annual-plan.js'
import {
  ANNUAL_PLAN_FROM,
  annualPlanMayMove,
  coverageWindow,
  newProtocol,
  refundAmount,
  refundAt,
  statusAt,
} from './annual-plan.rules.js'

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

describe('ANNUAL_PLAN_FROM', () => {
  const STATUSES = ['awaiting_payment', 'paid', 'protected', 'expired', 'canceled'] as const
  // The allowed moves; every other pair of statuses is refused.
  const ALLOWED = new Set([
    'awaiting_payment → paid',
    'paid → protected',
    'paid → expired',
    'protected → expired',
    'awaiting_payment → canceled',
    'paid → canceled',
    'protected → canceled',
    'expired → canceled',
  ])
  const pairs = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const))

  it.each(pairs)('%s → %s', (from: AnnualPlanStatus, to: AnnualPlanStatus) => {
    const allowed = ALLOWED.has(`${from} → ${to}`)
    expect(annualPlanMayMove(from, to)).toBe(allowed)
    expect((ANNUAL_PLAN_FROM[to] as readonly AnnualPlanStatus[]).includes(from)).toBe(allowed)
  })

  it('the clock moves a plan only along them', () => {
    const plan = { starts_at: '2026-11-22T03:00:00.000Z', ends_at: '2027-11-22T03:00:00.000Z' }
    for (const stored of ['paid', 'protected'] as const)
      for (const now of ['2026-11-22T03:00:00.000Z', '2027-11-22T03:00:00.000Z']) {
        const shown = statusAt({ ...plan, status: stored }, now)
        if (shown !== stored) expect(annualPlanMayMove(stored, shown)).toBe(true)
      }
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

describe('newProtocol', () => {
  it('is CAN- and 10 base32 characters', () => {
    // Written out, not imported: the module's own pattern would follow any change to it.
    expect(newProtocol(randomBytes)).toMatch(/^CAN-[A-Z2-7]{10}$/)
  })

  it('maps each random byte to one character', () => {
    const bytes = Buffer.from([0, 1, 25, 26, 31, 32, 63, 255, 224, 2])
    expect(newProtocol(() => bytes)).toBe('CAN-ABZ27A77AC')
  })

  it('does not repeat', () => {
    const protocols = new Set(Array.from({ length: 1000 }, () => newProtocol(randomBytes)))
    expect(protocols.size).toBe(1000)
  })
})

// Paid 2026-03-10, cover 2026-03-11 → 2027-03-11 (365 days).
const paid = { premium: 98_989, paidOn: '2026-03-10', startsOn: '2026-03-11', endsOn: '2027-03-11' }

describe('refundAmount', () => {
  it.each([
    ['day 0 (the payment day)', '2026-03-10', 98_989],
    ['day 7: still the right of regret', '2026-03-17', 98_989],
    ['day 8: pro rata, 358 of 365 days left', '2026-03-18', 97_091], // 98989 × 358 / 365 = 97090.6…
    ['mid-term: 181 of 365 days left', '2026-09-11', 49_088], // 98989 × 181 / 365 = 49088.0…
    ['the last covered day: 1 day left', '2027-03-10', 271], // 98989 / 365 = 271.2…
  ])('%s → %i cents', (_label, confirmedOn, expected) => {
    expect(refundAmount({ ...paid, confirmedOn })).toBe(expected)
  })

  it('divides by 366 in a leap term', () => {
    // Cover 2027-03-11 → 2028-03-11 spans 29 Feb 2028: 366 days; 183 left on 2027-09-10.
    const leap = { premium: 36_600, paidOn: '2027-03-10', startsOn: '2027-03-11', endsOn: '2028-03-11' }
    expect(refundAmount({ ...leap, confirmedOn: '2027-09-10' })).toBe(18_300)
  })

  it('rounds half-up to the cent', () => {
    // 1 × 1 / 2 = 0.5 → 1
    const tiny = { premium: 1, paidOn: '2026-01-01', startsOn: '2026-01-02', endsOn: '2026-01-04' }
    expect(refundAmount({ ...tiny, confirmedOn: '2026-01-03' })).toBe(1)
  })

  it('is 0 for a plan never paid', () => {
    expect(
      refundAmount({
        premium: 98_989,
        paidOn: null,
        startsOn: null,
        endsOn: null,
        confirmedOn: '2026-03-18',
      }),
    ).toBe(0)
  })

  it('is 0 once the term is over', () => {
    expect(refundAmount({ ...paid, confirmedOn: '2027-03-12' })).toBe(0)
  })
})

describe('refundAt', () => {
  // Paid 2026-03-10 22:00 in São Paulo (01:00 UTC on the 11th): cover 2026-03-11 → 2027-03-11.
  const plan = {
    premium: 98_989,
    paid_at: '2026-03-11T01:00:00.000Z',
    starts_at: '2026-03-11T03:00:00.000Z',
    ends_at: '2027-03-11T03:00:00.000Z',
  }

  it('counts days on the service zone’s calendar, not UTC’s', () => {
    // 2026-03-18 02:59:59 UTC is still the 17th in São Paulo: day 7, the full premium.
    expect(refundAt(plan, '2026-03-18T02:59:59.000Z', SP)).toBe(98_989)
    // One second later it is the 18th: day 8, pro rata.
    expect(refundAt(plan, '2026-03-18T03:00:00.000Z', SP)).toBe(97_091)
  })

  it('is 0 for an unpaid plan', () => {
    const unpaid = { premium: 98_989, paid_at: null, starts_at: null, ends_at: null }
    expect(refundAt(unpaid, '2026-03-18T03:00:00.000Z', SP)).toBe(0)
  })
})
