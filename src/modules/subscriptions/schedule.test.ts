import { describe, expect, it } from 'vitest'
import { expiryCutoff, installmentSchedule, nextAttemptOn, pastPendingExpiry, retryOn } from './schedule.js'

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

describe('expiryCutoff', () => {
  it('is 00:00 in the service zone of the day 29 days before today', () => {
    // São Paulo is UTC−3: contracted on 2026-11-21 (local) expires on 2026-12-21.
    expect(expiryCutoff('2026-12-21', 'America/Sao_Paulo')).toBe('2026-11-22T03:00:00.000Z')
    expect(expiryCutoff('2026-12-21', 'UTC')).toBe('2026-11-22T00:00:00.000Z')
  })

  it('counts calendar days across month ends', () => {
    expect(expiryCutoff('2027-03-01', 'UTC')).toBe('2027-01-31T00:00:00.000Z')
  })
})

describe('pastPendingExpiry', () => {
  const zone = 'America/Sao_Paulo'
  // 23:30 local on 2026-11-21 is 02:30 UTC on the 22nd: the local contracting day counts.
  const lateEvening = '2026-11-22T02:30:00.000Z'

  it('is false through day 29 and true from 00:00 of day 30, local calendar days', () => {
    expect(pastPendingExpiry(lateEvening, new Date('2026-12-21T02:59:59.000Z'), zone)).toBe(false)
    expect(pastPendingExpiry(lateEvening, new Date('2026-12-21T03:00:00.000Z'), zone)).toBe(true)
    expect(pastPendingExpiry(lateEvening, new Date('2027-01-15T12:00:00.000Z'), zone)).toBe(true)
  })

  it('compares instants to the millisecond', () => {
    const now = new Date('2026-12-21T03:00:00.000Z')
    expect(pastPendingExpiry('2026-11-22T02:59:59.999Z', now, zone)).toBe(true)
    expect(pastPendingExpiry('2026-11-22T03:00:00.000Z', now, zone)).toBe(false)
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
