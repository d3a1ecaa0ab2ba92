import { describe, expect, it } from 'vitest'
import {
  failingTooLong,
  nextAttemptAt,
  normalizeEvents,
  RETRY_DELAYS,
  receives,
  signingSecrets,
} from './webhook.rules.js'
import { reachable, refusedShape } from './webhook-url.js'

const t0 = new Date('2026-11-21T12:00:00.000Z')

describe('nextAttemptAt', () => {
  it('follows the schedule with ±10 % jitter, and ends after the 8th retry', () => {
    RETRY_DELAYS.forEach((delay, i) => {
      expect(nextAttemptAt(i + 1, t0, 0)?.getTime()).toBe(t0.getTime() + Math.round(delay * 900))
      expect(nextAttemptAt(i + 1, t0, 0.5)?.getTime()).toBe(t0.getTime() + delay * 1000)
      expect(nextAttemptAt(i + 1, t0, 0.999_999)?.getTime()).toBeLessThanOrEqual(t0.getTime() + delay * 1100)
    })
    expect(RETRY_DELAYS).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 86_400, 86_400])
    expect(nextAttemptAt(9, t0)).toBeNull()
  })
})

describe('receives', () => {
  it('by type or *, a ping only its own endpoint', () => {
    expect(receives({ id: 1, events: ['*'] }, { type: 'installment.paid' })).toBe(true)
    expect(receives({ id: 1, events: ['installment.paid'] }, { type: 'installment.paid' })).toBe(true)
    expect(receives({ id: 1, events: ['installment.paid'] }, { type: 'subscription.created' })).toBe(false)
    expect(receives({ id: 1, events: ['installment.paid'] }, { type: 'ping', endpointId: 1 })).toBe(true)
    expect(receives({ id: 2, events: ['*'] }, { type: 'ping', endpointId: 1 })).toBe(false)
    expect(normalizeEvents(['a', '*'])).toEqual(['*'])
    expect(normalizeEvents(['a', 'b', 'a'])).toEqual(['a', 'b'])
  })
})

describe('failingTooLong and signingSecrets', () => {
  it('3 days of failures; the previous secret for 24 h', () => {
    expect(failingTooLong(null, t0)).toBe(false)
    expect(failingTooLong('2026-11-18T12:00:01.000Z', t0)).toBe(false)
    expect(failingTooLong('2026-11-18T12:00:00.000Z', t0)).toBe(true)
    const endpoint = {
      secret: 'new',
      previous_secret: 'old',
      previous_secret_expires_at: '2026-11-21T12:00:01.000Z',
    }
    expect(signingSecrets(endpoint, t0)).toEqual(['new', 'old'])
    expect(signingSecrets({ ...endpoint, previous_secret_expires_at: t0.toISOString() }, t0)).toEqual(['new'])
  })
})

describe('URL rules', () => {
  it('test allows http and loopback; production neither; no environment allows private ranges', () => {
    expect(refusedShape('http://127.0.0.1/x', 'test')).toBeNull()
    expect(refusedShape('http://127.0.0.1/x', 'production')).toBe('The url must use https.')
    expect(refusedShape('https://u:p@example.com/', 'production')).toBe(
      'The url must not contain credentials.',
    )
    expect(reachable('127.0.0.1', 'test')).toBe(true)
    expect(reachable('::1', 'test')).toBe(true)
    expect(reachable('::ffff:127.0.0.1', 'production')).toBe(false)
    for (const address of ['10.0.0.1', '169.254.169.254', '100.64.0.1', 'fd00::1', '224.0.0.1', '0.0.0.0']) {
      expect(reachable(address, 'test'), address).toBe(false)
      expect(reachable(address, 'production'), address).toBe(false)
    }
    expect(reachable('93.184.215.14', 'production')).toBe(true)
  })
})
