import { describe, expect, it } from 'vitest'
import { annualPlanInForce, paidWithOf, policyNumber, subscriptionInForce } from './contract.rules.js'

const SP = 'America/Sao_Paulo'
const PAID = '2026-10-01T15:00:00.000Z'
const subscription = (over: Partial<Parameters<typeof subscriptionInForce>[0]> = {}) => ({
  status: 'pago',
  firstPaidAt: PAID,
  endsAt: '2027-10-01T03:00:00.000Z',
  installments: [
    { dueDate: '2026-10-01', paid: true },
    { dueDate: '2026-11-01', paid: false },
  ],
  ...over,
})

describe('subscriptionInForce', () => {
  it.each([
    ['pago, after payment, nothing overdue', subscription(), '2026-10-20T12:00:00.000Z', '2026-10-20', true],
    ['before installment 1 was paid', subscription(), '2026-10-01T14:00:00.000Z', '2026-10-01', false],
    [
      'in the second installment 1 was paid in',
      subscription({ firstPaidAt: '2026-10-01T15:00:00.512Z' }),
      '2026-10-01T15:00:00.000Z',
      '2026-10-01',
      true,
    ],
    [
      'the second before',
      subscription({ firstPaidAt: '2026-10-01T15:00:00.512Z' }),
      '2026-10-01T14:59:59.000Z',
      '2026-10-01',
      false,
    ],
    [
      'installment 2 due exactly 10 days before',
      subscription(),
      '2026-11-11T12:00:00.000Z',
      '2026-11-11',
      true,
    ],
    [
      'installment 2 due 11 days before, unpaid',
      subscription(),
      '2026-11-12T12:00:00.000Z',
      '2026-11-12',
      false,
    ],
    [
      'installment 2 paid since',
      subscription({
        installments: [
          { dueDate: '2026-10-01', paid: true },
          { dueDate: '2026-11-01', paid: true },
        ],
      }),
      '2026-11-20T12:00:00.000Z',
      '2026-11-20',
      true,
    ],
    [
      'pending',
      subscription({ status: 'pending', firstPaidAt: null }),
      '2026-10-20T12:00:00.000Z',
      '2026-10-20',
      false,
    ],
    ['canceled', subscription({ status: 'canceled' }), '2026-10-20T12:00:00.000Z', '2026-10-20', false],
    [
      'expired, loss before its end',
      subscription({ status: 'expired' }),
      '2026-10-20T12:00:00.000Z',
      '2026-10-20',
      true,
    ],
    [
      'loss after the last month',
      subscription({ installments: [{ dueDate: '2026-10-01', paid: true }] }),
      '2027-10-02T12:00:00.000Z',
      '2027-10-02',
      false,
    ],
  ])('%s', (_, s, at, on, expected) => {
    expect(subscriptionInForce(s, at, on)).toBe(expected)
  })
})

describe('annualPlanInForce', () => {
  const plan = { startsAt: '2026-10-02T03:00:00.000Z', endsAt: '2027-10-02T03:00:00.000Z', canceledAt: null }
  it.each([
    ['within the window', plan, '2026-12-01T00:00:00.000Z', true],
    ['at starts_at', plan, plan.startsAt, true],
    ['before starts_at', plan, '2026-10-02T02:59:59.000Z', false],
    ['at ends_at', plan, plan.endsAt, false],
    ['unpaid', { startsAt: null, endsAt: null, canceledAt: null }, '2026-12-01T00:00:00.000Z', false],
    [
      'canceled before the loss',
      { ...plan, canceledAt: '2026-11-01T00:00:00.000Z' },
      '2026-12-01T00:00:00.000Z',
      false,
    ],
    [
      'canceled after the loss',
      { ...plan, canceledAt: '2026-12-02T00:00:00.000Z' },
      '2026-12-01T00:00:00.000Z',
      true,
    ],
  ])('%s', (_, p, at, expected) => {
    expect(annualPlanInForce(p, at)).toBe(expected)
  })
})

describe('policyNumber', () => {
  it('is AMP-<year>-<id padded to 6 digits>', () => {
    expect(policyNumber(42, '2026-11-21T15:00:00.000Z', SP)).toBe('AMP-2026-000042')
  })

  it('takes the year of the payment in the service zone, not in UTC', () => {
    // 02:30 UTC on 1 January 2027 is still 31 December 2026 in São Paulo.
    expect(policyNumber(7, '2027-01-01T02:30:00.000Z', SP)).toBe('AMP-2026-000007')
    expect(policyNumber(7, '2027-01-01T03:00:00.000Z', SP)).toBe('AMP-2027-000007')
  })

  it('keeps every digit of ids past six', () => {
    expect(policyNumber(12_345_678, '2026-11-21T15:00:00.000Z', SP)).toBe('AMP-2026-12345678')
  })
})

describe('paidWithOf', () => {
  it.each([
    ['card', 'card'],
    ['recurrence', 'card'],
    ['notification', 'external'],
  ] as const)('%s → %s', (channel, expected) => {
    expect(paidWithOf(channel)).toBe(expected)
  })
})
