import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import {
  failingTooLong,
  nextAttemptAt,
  normalizeEvents,
  RETRY_DELAYS,
  receives,
  signingSecrets,
} from './webhook.rules.js'
import { deliveryAgents, reachable, refusedShape } from './webhook-url.js'

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

  it.each([
    ['IPv4-compatible, as written', '::10.0.0.1'],
    ['IPv4-compatible, as URLs normalise it', '::a00:1'],
    ['IPv4-compatible, public inside', '::5db8:d70e'],
    ['IPv4-mapped private', '::ffff:10.0.0.1'],
    ['IPv4-mapped, hex', '::ffff:a9fe:a9fe'],
    ['NAT64 of a private address', '64:ff9b::10.0.0.1'],
    ['NAT64 of the metadata address', '64:ff9b::a9fe:a9fe'],
    ['NAT64 local-use', '64:ff9b:1::a00:1'],
    ['6to4 of a private address', '2002:a00:1::1'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['IPv4-translated', '::ffff:0:a00:1'],
  ])('refuses every IPv6 spelling of an IPv4 address that could be private: %s', (_, address) => {
    expect(reachable(address, 'production')).toBe(false)
    expect(reachable(address, 'test')).toBe(false)
  })
})

describe('the delivery agents', () => {
  // At delivery the address is checked again as the connection is made (DNS can change).
  const connectError = (url: string) =>
    new Promise<string>((resolve) => {
      const sent = request(url, { agent: deliveryAgents('production').http, timeout: 5000 }, () =>
        resolve('connected'),
      )
      sent.on('error', (error) => resolve(error.message))
      sent.end()
    })

  it.each([
    'http://[::a00:1]/',
    'http://[::ffff:a00:1]/',
    'http://[64:ff9b::a00:1]/',
    'http://[2002:a00:1::1]/',
  ])('refuse to connect to %s', async (url) => {
    expect(await connectError(url)).toMatch(/is not allowed/)
  })
})
