import { describe, expect, it } from 'vitest'
import { type ContractFacts, nextStep, payableNow, payingOptions, withinWithdrawal } from './portal.rules.js'

describe('withinWithdrawal', () => {
  it.each([
    ['2026-12-01T12:00:00Z', '2026-12-08T11:59:59Z', true],
    ['2026-12-01T12:00:00Z', '2026-12-08T12:00:00Z', false],
    ['2026-12-01T12:00:00Z', '2026-12-01T12:00:00Z', true],
  ])('contracted %s, now %s → %s', (at, now, within) => expect(withinWithdrawal(at, now)).toBe(within))
})

describe('nextStep', () => {
  const base: ContractFacts = { stage: 'in_force', overdue: false, openClaim: false }
  it.each([
    [base, 'claim_if_needed'],
    [{ ...base, openClaim: true }, 'follow_claim'],
    [{ ...base, overdue: true }, 'pay_overdue'],
    [{ ...base, stage: 'unpaid' as const }, 'pay_first'],
    [{ ...base, stage: 'waiting' as const }, 'awaiting_start'],
    [{ ...base, stage: 'ended' as const }, 'ended'],
    [{ ...base, stage: 'ended' as const, openClaim: true }, 'follow_claim'],
  ])('%j → %s', (facts, step) => expect(nextStep(facts)).toBe(step))
})

describe('payableNow', () => {
  const today = '2026-12-07'
  it.each([
    ['pending', { number: 1, status: 'pending', due_date: '2026-12-01' }, true],
    ['pending', { number: 1, status: 'refused', due_date: '2026-12-01' }, true],
    ['pending', { number: 2, status: 'pending', due_date: '2026-12-01' }, false],
    ['pago', { number: 1, status: 'paid', due_date: '2026-11-01' }, false],
    ['pago', { number: 2, status: 'pending', due_date: '2026-12-07' }, true],
    ['pago', { number: 2, status: 'pending', due_date: '2026-12-08' }, false],
    ['pago', { number: 3, status: 'canceled', due_date: '2026-12-01' }, false],
    ['canceled', { number: 2, status: 'pending', due_date: '2026-12-01' }, false],
    ['expired', { number: 2, status: 'pending', due_date: '2026-12-01' }, false],
  ] as const)('%s subscription, %j → %s', (status, installment, payable) =>
    expect(payableNow(status, installment, today)).toBe(payable),
  )
})

describe('payingOptions', () => {
  const today = '2026-12-07'
  const overdue = { number: 2, status: 'pending', due_date: '2026-12-01' } as const
  it('offers nothing for an external-gateway contract', () =>
    expect(
      payingOptions(false, { kind: 'subscription', status: 'pago', installments: [overdue], today }),
    ).toEqual({ own_gateway: false, replace_card: false, pay_by_card: false, pix: false }))
  it('offers the card, payment and PIX on a subscription in force with an overdue installment', () =>
    expect(
      payingOptions(true, { kind: 'subscription', status: 'pago', installments: [overdue], today }),
    ).toEqual({ own_gateway: true, replace_card: true, pay_by_card: true, pix: true }))
  it('offers only the card on a subscription in force with nothing due', () =>
    expect(payingOptions(true, { kind: 'subscription', status: 'pago', installments: [], today })).toEqual({
      own_gateway: true,
      replace_card: true,
      pay_by_card: false,
      pix: false,
    }))
  it('offers PIX on an annual plan awaiting payment only', () => {
    expect(payingOptions(true, { kind: 'annual_plan', status: 'awaiting_payment' }).pix).toBe(true)
    expect(payingOptions(true, { kind: 'annual_plan', status: 'paid' }).pix).toBe(false)
  })
})
