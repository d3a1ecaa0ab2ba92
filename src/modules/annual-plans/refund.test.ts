import { describe, expect, it } from 'vitest'
import { refundAmount, refundAt } from './refund.js'

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
  const SP = 'America/Sao_Paulo'

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
