import { describe, expect, it } from 'vitest'
import { installmentSchedule, nextAttemptOn, retryOn } from './schedule.js'

describe('installmentSchedule', () => {
  it('puts installment k k−1 months after the contracting date, each of the monthly premium', () => {
    expect(installmentSchedule('2026-11-21', 3, 10_799)).toEqual([
      { number: 1, amount: 10_799, due_date: '2026-11-21' },
      { number: 2, amount: 10_799, due_date: '2026-12-21' },
      { number: 3, amount: 10_799, due_date: '2027-01-21' },
    ])
  })

  it('clamps to the month end, counting from the contracting date', () => {
    const dates = installmentSchedule('2026-01-31', 4, 1).map((i) => i.due_date)
    expect(dates).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30'])
  })

  it('lands on 29 February in a leap year', () => {
    expect(installmentSchedule('2028-01-30', 2, 1)[1]?.due_date).toBe('2028-02-29')
  })

  it('has as many installments as the plan', () => {
    expect(installmentSchedule('2026-11-21', 24, 1)).toHaveLength(24)
    expect(installmentSchedule('2026-11-21', 24, 1)[23]?.due_date).toBe('2028-10-21')
  })
})

describe('nextAttemptOn', () => {
  it('retries 1, 3 and 5 days after the due date, then gives up', () => {
    expect(nextAttemptOn('2026-12-21', 1)).toBe('2026-12-22')
    expect(nextAttemptOn('2026-12-21', 2)).toBe('2026-12-24')
    expect(nextAttemptOn('2026-12-21', 3)).toBe('2026-12-26')
    expect(nextAttemptOn('2026-12-21', 4)).toBeNull()
  })

  it('crosses month and year ends', () => {
    expect(nextAttemptOn('2026-12-31', 1)).toBe('2027-01-01')
    expect(nextAttemptOn('2028-02-27', 2)).toBe('2028-03-01')
  })
})

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
