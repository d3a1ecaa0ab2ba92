import { describe, expect, it } from 'vitest'
import {
  annualPremium,
  applicableLmi,
  authorizedLmiRange,
  maximaToCents,
  subscriptionPrice,
} from './pricing.rules.js'

const range = { minFactorBp: 5000, maxFactorBp: 10_000 }
const DEFAULT = 899_900 // R$ 8,999.00

describe('authorizedLmiRange', () => {
  it('scales the default LMI by the partner factors, half-up to the cent', () => {
    expect(authorizedLmiRange(DEFAULT, range)).toEqual({ min: 449_950, max: 899_900 })
    expect(authorizedLmiRange(333, range)).toEqual({ min: 167, max: 333 })
  })
})

describe('applicableLmi', () => {
  it.each([
    ['absent', undefined, DEFAULT],
    ['exactly the minimum', 449_950, 449_950],
    ['a cent below the minimum', 449_949, DEFAULT],
    ['inside', 600_000, 600_000],
    ['exactly the maximum', 899_900, 899_900],
    ['a cent above the maximum', 899_901, DEFAULT],
    ['zero', 0, DEFAULT],
    ['negative', -100, DEFAULT],
  ])('%s → %s', (_label, maxima, expected) => {
    expect(applicableLmi(DEFAULT, range, maxima)).toBe(expected)
  })

  it('allows above the default when the partner range does', () => {
    expect(applicableLmi(100_000, { minFactorBp: 5000, maxFactorBp: 12_000 }, 120_000)).toBe(120_000)
    expect(applicableLmi(100_000, { minFactorBp: 5000, maxFactorBp: 12_000 }, 120_001)).toBe(100_000)
  })

  it('never applies an LMI of zero, even when the minimum rounds down to it', () => {
    const tiny = { minFactorBp: 1, maxFactorBp: 10_000 }
    expect(authorizedLmiRange(333, tiny).min).toBe(0)
    expect(applicableLmi(333, tiny, 0)).toBe(333)
    expect(applicableLmi(333, tiny, 1)).toBe(1)
  })

  it('gives unbounded amounts the default', () => {
    expect(applicableLmi(DEFAULT, range, Number.POSITIVE_INFINITY)).toBe(DEFAULT)
    expect(applicableLmi(DEFAULT, range, Number.NEGATIVE_INFINITY)).toBe(DEFAULT)
  })
})

describe('maximaToCents', () => {
  it.each([
    [4499.5, 449_950],
    [4499.49, 449_949],
    [8999, 899_900],
    [0.01, 1],
    [1.1, 110], // 1.1 × 100 is 110.00000000000001 in floating point
    [999_999_999_999.99, 99_999_999_999_999],
    [0, 0],
    [-0, 0],
    [-100, -10_000],
    [-4499.5, -449_950],
  ])('%s reais → %s cents', (maxima, cents) => {
    expect(maximaToCents(maxima)).toBe(cents)
  })

  it.each([
    1.005,
    4499.505,
    0.001,
    1e-7,
    -1.005,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ])('%s is no amount', (maxima) => {
    expect(maximaToCents(maxima)).toBeNull()
  })

  it('places amounts past any range beyond every range, whatever their decimals', () => {
    expect(maximaToCents(1e30)).toBe(Number.POSITIVE_INFINITY)
    expect(maximaToCents(1_000_000_000_000.5)).toBe(Number.POSITIVE_INFINITY)
    expect(maximaToCents(-1e30)).toBe(Number.NEGATIVE_INFINITY)
  })
})

describe('subscriptionPrice', () => {
  it('applies the monthly and franchise rates in cents, half-up', () => {
    expect(subscriptionPrice(DEFAULT, { monthlyRateBp: 120, franchiseRateBp: 1500 })).toEqual({
      monthlyPremium: 10_799, // 10798.8
      franchise: 134_985,
    })
    expect(subscriptionPrice(12_345, { monthlyRateBp: 100, franchiseRateBp: 2000 })).toEqual({
      monthlyPremium: 123, // 123.45 → 123
      franchise: 2469,
    })
    expect(subscriptionPrice(12_350, { monthlyRateBp: 100, franchiseRateBp: 0 })).toEqual({
      monthlyPremium: 124, // 123.5 → 124
      franchise: 0,
    })
  })
})

describe('annualPremium', () => {
  const rates = { annualRateBp: 1100, usedFactorBp: 11_500 }

  it('is LMI × annual rate for a new device', () => {
    expect(annualPremium(DEFAULT, rates, false)).toBe(98_989)
  })

  it('applies the used-device factor with a single rounding', () => {
    expect(annualPremium(DEFAULT, rates, true)).toBe(113_837) // 113837.35
    // 45 × 0.10 × 1.5 = 6.75 → 7; rounding twice would give 4.5 → 5, × 1.5 = 7.5 → 8
    expect(annualPremium(45, { annualRateBp: 1000, usedFactorBp: 15_000 }, true)).toBe(7)
  })

  it('rounds half-up', () => {
    expect(annualPremium(50, { annualRateBp: 1000, usedFactorBp: 10_000 }, false)).toBe(5)
    expect(annualPremium(45, { annualRateBp: 1000, usedFactorBp: 10_000 }, false)).toBe(5) // 4.5 → 5
    expect(annualPremium(44, { annualRateBp: 1000, usedFactorBp: 10_000 }, false)).toBe(4)
  })
})
