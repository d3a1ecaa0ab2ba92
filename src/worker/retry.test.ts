import { describe, expect, it } from 'vitest'
import { retryOn } from './retry.js'

describe('retryOn', () => {
  it('follows the 1, 3 and 5 days schedule from the due date, then gives up', () => {
    expect(retryOn('2026-12-21', 1, '2026-12-21')).toBe('2026-12-22')
    expect(retryOn('2026-12-21', 2, '2026-12-22')).toBe('2026-12-24')
    expect(retryOn('2026-12-21', 3, '2026-12-24')).toBe('2026-12-26')
    expect(retryOn('2026-12-21', 4, '2026-12-26')).toBeNull()
  })

  it('crosses month and year ends', () => {
    expect(retryOn('2026-12-31', 1, '2026-12-31')).toBe('2027-01-01')
    expect(retryOn('2027-02-27', 2, '2027-02-28')).toBe('2027-03-02')
  })

  it('never schedules a retry for today or a past day when catching up', () => {
    expect(retryOn('2026-12-21', 1, '2026-12-30')).toBe('2026-12-31')
    expect(retryOn('2026-12-21', 2, '2026-12-23')).toBe('2026-12-24')
    expect(retryOn('2026-12-21', 3, '2026-12-31')).toBe('2027-01-01')
    expect(retryOn('2026-12-21', 4, '2027-01-01')).toBeNull()
  })
})
