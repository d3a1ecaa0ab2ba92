import { describe, expect, it } from 'vitest'
import { expiryCutoff } from './pending-expiry.job.js'

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
