import { describe, expect, it } from 'vitest'
import { type ContractFacts, nextStep, withinWithdrawal } from './portal.rules.js'

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
