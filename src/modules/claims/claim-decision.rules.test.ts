import { describe, expect, it } from 'vitest'
import type { ClaimStatus } from '../../db/tables/claim.js'
import {
  approvalErrors,
  CLAIM_STATUSES,
  canApprove,
  canDeny,
  canSettle,
  denialErrors,
  payableAmount,
  settlementEndsContract,
  settlementErrors,
} from './claim.rules.js'

describe('payableAmount', () => {
  it.each([
    // approved, franchise (cents) → payable
    [500_000, 97_485, 402_515],
    [97_485, 97_485, 0],
    [50_000, 97_485, 0],
    [1, 0, 1],
    [649_900, 0, 649_900],
    [100_001, 1, 100_000],
  ])('%i − %i → %i', (approved, franchise, payable) => {
    expect(payableAmount(approved, franchise)).toBe(payable)
  })
})

describe('decision gates by status', () => {
  const table: [ClaimStatus, boolean, boolean, boolean][] = [
    // status, approve, deny, settle
    ['documents_pending', false, true, false],
    ['under_review', true, true, false],
    ['approved', false, false, true],
    ['denied', false, false, false],
    ['settled', false, false, false],
    ['withdrawn', false, false, false],
  ]
  it('covers every status', () => {
    expect(table.map(([s]) => s)).toEqual([...CLAIM_STATUSES])
  })
  it.each(table)('%s: approve %s, deny %s, settle %s', (status, approve, deny, settle) => {
    expect([canApprove(status), canDeny(status), canSettle(status)]).toEqual([approve, deny, settle])
  })
})

describe('approvalErrors', () => {
  const LMI = 649_900
  it.each([
    ['repair', 1, []],
    ['replacement', LMI, []],
    ['indemnity', 300_000, []],
    ['repair', 0, ['approved_amount']],
    ['repair', null, ['approved_amount']],
    ['repair', LMI + 1, ['approved_amount']],
    ['refund', 1000, ['settlement_method']],
    ['', LMI + 1, ['approved_amount', 'settlement_method']],
  ] as [string, number | null, string[]][])('%s, %s → %j', (settlementMethod, approvedAmount, fields) => {
    expect(Object.keys(approvalErrors({ settlementMethod, approvedAmount }, LMI)).sort()).toEqual(fields)
  })
})

describe('denialErrors', () => {
  it.each([
    ['not_covered', 'Fora da cobertura.', []],
    ['fraud_suspected', 'x', []],
    ['other', 'a'.repeat(2000), []],
    ['other', 'a'.repeat(2001), ['note']],
    ['other', '   ', ['note']],
    ['changed_mind', 'Nota.', ['reason_code']],
    ['', '', ['note', 'reason_code']],
  ])('%s, %j → %j', (reasonCode, note, fields) => {
    expect(Object.keys(denialErrors({ reasonCode, note })).sort()).toEqual(fields)
  })
})

describe('settlementErrors', () => {
  it.each([
    [null, []],
    ['OS-123', []],
    ['x'.repeat(100), []],
    ['x'.repeat(101), ['reference']],
  ])('%j → %j', (reference, fields) => {
    expect(Object.keys(settlementErrors(reference))).toEqual(fields)
  })
})

describe('settlementEndsContract', () => {
  it.each([
    ['repair', false],
    ['replacement', true],
    ['indemnity', true],
  ] as const)('%s → %s', (method, ends) => {
    expect(settlementEndsContract(method)).toBe(ends)
  })
})
