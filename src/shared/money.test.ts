import { describe, expect, it } from 'vitest'
import { amountToCents, applyRateBp, centsToAmount, rateToBp } from './money.js'

describe('centsToAmount', () => {
  it('renders cents as reais with at most two decimals', () => {
    expect(centsToAmount(2990)).toBe(29.9)
    expect(centsToAmount(350000)).toBe(3500)
    expect(centsToAmount(1)).toBe(0.01)
    expect(centsToAmount(1099999)).toBe(10999.99)
  })

  it('handles zero and large values', () => {
    expect(centsToAmount(0)).toBe(0)
    expect(centsToAmount(1e9)).toBe(1e7)
    expect(centsToAmount(123456789012)).toBe(1234567890.12)
  })

  it('round-trips through amountToCents', () => {
    for (const cents of [0, 1, 7, 10, 99, 101, 2990, 10005, 123456789, 1e9 + 1]) {
      expect(amountToCents(centsToAmount(cents))).toBe(cents)
    }
  })

  it('rejects non-integer cents', () => {
    expect(() => centsToAmount(1.5)).toThrow(RangeError)
    expect(() => centsToAmount(Number.NaN)).toThrow(RangeError)
  })
})

describe('amountToCents', () => {
  it('converts reais with up to two decimals', () => {
    expect(amountToCents(29.9)).toBe(2990)
    expect(amountToCents(10999)).toBe(1099900)
    expect(amountToCents(0.01)).toBe(1)
    expect(amountToCents(19.99)).toBe(1999)
    expect(amountToCents(1.1)).toBe(110)
  })

  it('accepts zero (including -0) and large amounts', () => {
    expect(amountToCents(0)).toBe(0)
    expect(amountToCents(-0)).toBe(0)
    expect(amountToCents(1e7)).toBe(1e9)
    expect(amountToCents(12345678901.23)).toBe(1234567890123)
  })

  it('rejects more than two decimals by the shortest decimal string', () => {
    expect(amountToCents(1.005)).toBeNull()
    expect(amountToCents(0.1 + 0.2)).toBeNull()
    expect(amountToCents(0.001)).toBeNull()
    expect(amountToCents(1e-7)).toBeNull()
  })

  it('rejects negative, non-finite and unsafe values', () => {
    expect(amountToCents(-1)).toBeNull()
    expect(amountToCents(-0.01)).toBeNull()
    expect(amountToCents(Number.NaN)).toBeNull()
    expect(amountToCents(Number.POSITIVE_INFINITY)).toBeNull()
    expect(amountToCents(Number.NEGATIVE_INFINITY)).toBeNull()
    expect(amountToCents(1e21)).toBeNull()
    expect(amountToCents(Number.MAX_SAFE_INTEGER)).toBeNull()
  })
})

describe('applyRateBp', () => {
  it('applies a rate in basis points', () => {
    expect(applyRateBp(100000, 125)).toBe(1250)
    expect(applyRateBp(2990, 10000)).toBe(2990)
    expect(applyRateBp(2990, 20000)).toBe(5980)
  })

  it('rounds half up to the cent', () => {
    expect(applyRateBp(333, 5000)).toBe(167) // 166.5
    expect(applyRateBp(1, 5000)).toBe(1) // 0.5
    expect(applyRateBp(1, 4999)).toBe(0) // 0.4999
    expect(applyRateBp(149, 100)).toBe(1) // 1.49
    expect(applyRateBp(150, 100)).toBe(2) // 1.50
    expect(applyRateBp(249, 100)).toBe(2) // 2.49
    expect(applyRateBp(250, 100)).toBe(3) // 2.50
  })

  it('returns zero for a zero amount or rate', () => {
    expect(applyRateBp(0, 125)).toBe(0)
    expect(applyRateBp(100000, 0)).toBe(0)
  })

  it('stays exact on large values', () => {
    expect(applyRateBp(1e9, 125)).toBe(12_500_000)
    expect(applyRateBp(1e9, 10000)).toBe(1e9)
    expect(applyRateBp(999_999_999, 3333)).toBe(333_300_000) // 333299999.6667
    // The product (≈ 9e19) is far past 2^53; float math would lose the last cents.
    expect(applyRateBp(Number.MAX_SAFE_INTEGER, 10000)).toBe(Number.MAX_SAFE_INTEGER)
  })

  it('rejects negative or fractional inputs', () => {
    expect(() => applyRateBp(-1, 100)).toThrow(RangeError)
    expect(() => applyRateBp(100, -1)).toThrow(RangeError)
    expect(() => applyRateBp(1.5, 100)).toThrow(RangeError)
    expect(() => applyRateBp(100, 12.5)).toThrow(RangeError)
  })
})

describe('rateToBp', () => {
  it('converts a decimal fraction to basis points', () => {
    expect(rateToBp(0.0125)).toBe(125)
    expect(rateToBp(1)).toBe(10000)
    expect(rateToBp(0.0001)).toBe(1)
    expect(rateToBp(0.5)).toBe(5000)
    expect(rateToBp(2.5)).toBe(25000)
    expect(rateToBp(0)).toBe(0)
  })

  it('rejects more than four decimals, negative and non-finite rates', () => {
    expect(rateToBp(0.00125)).toBeNull()
    expect(rateToBp(0.00001)).toBeNull()
    expect(rateToBp(0.1 + 0.2)).toBeNull()
    expect(rateToBp(-0.01)).toBeNull()
    expect(rateToBp(Number.NaN)).toBeNull()
    expect(rateToBp(Number.POSITIVE_INFINITY)).toBeNull()
  })
})
