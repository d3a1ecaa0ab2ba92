import { describe, expect, it } from 'vitest'
import { policyNumber } from './policy-number.js'

const SP = 'America/Sao_Paulo'

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
