import { describe, expect, it } from 'vitest'
import { CODE_FROM, codeExpiry, codeStatusAt, codeStatusOn } from './payment-code.rules.js'

const SP = 'America/Sao_Paulo'

describe('codeExpiry', () => {
  it.each([
    ['pix: an hour later', 'pix', '2026-11-21T15:00:00.000Z', '2026-11-21T16:00:00.000Z'],
    [
      'boleto: 00:00 after its third day (São Paulo)',
      'boleto',
      '2026-11-21T15:00:00.000Z',
      '2026-11-25T03:00:00.000Z',
    ],
    [
      'boleto made late at night local time',
      'boleto',
      '2026-11-22T02:30:00.000Z',
      '2026-11-25T03:00:00.000Z',
    ],
  ] as const)('%s', (_, method, now, expected) => {
    expect(codeExpiry(method, new Date(now), SP)).toBe(expected)
  })
})

describe('codeStatusAt', () => {
  const at = '2026-11-21T16:00:00.000Z'
  it.each([
    ['pending before its expiry', 'pending', '2026-11-21T16:00:00.001Z', 'pending'],
    ['pending at its expiry', 'pending', at, 'expired'],
    ['paid after its expiry stays paid', 'paid', '2026-11-21T15:00:00.000Z', 'paid'],
    ['failed stays failed', 'failed', '2026-11-21T17:00:00.000Z', 'failed'],
  ] as const)('%s', (_, status, expiresAt, expected) => {
    expect(codeStatusAt({ status, expires_at: expiresAt }, at)).toBe(expected)
  })
})

describe('codeStatusOn and CODE_FROM', () => {
  it.each([
    ['succeeded', 'paid'],
    ['payment_failed', 'failed'],
    ['canceled', 'canceled'],
  ] as const)('%s → %s', (outcome, status) => {
    expect(codeStatusOn(outcome)).toBe(status)
  })
  it('pays a code whatever ended it, and ends only a pending one otherwise', () => {
    expect(CODE_FROM.paid).toEqual(['pending', 'expired', 'failed', 'canceled'])
    for (const to of ['expired', 'failed', 'canceled'] as const) expect(CODE_FROM[to]).toEqual(['pending'])
  })
})
