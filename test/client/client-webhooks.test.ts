import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { verifyWebhook, WebhookVerificationError } from '../../clients/typescript/src/index.js'

const SECRET = `whsec_${Buffer.from('a webhook secret of 32 bytes....').toString('base64')}`
const OLD_SECRET = `whsec_${Buffer.from('the secret before the rotation..').toString('base64')}`

const event = {
  id: 'evt_6f1c2a9e0b7d4c3f8a5e1d2c3b4a5f60',
  type: 'subscription.activated',
  created_at: '2026-11-25 10:00:00',
  data: { object: { id: 1001, status: 'pago' } },
}
const body = JSON.stringify(event)

/** A delivery's headers as the service sends them, signed at `at` (Unix seconds). */
function signed(secrets: string[], at = Math.floor(Date.now() / 1000), payload = body) {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(event.id, new Date(at * 1000), payload))
  return {
    'webhook-id': event.id,
    'webhook-timestamp': String(at),
    'webhook-signature': signatures.join(' '),
  }
}

describe('verifyWebhook', () => {
  it('returns the event of a delivery signed with the endpoint’s secret', () => {
    expect(verifyWebhook(body, signed([SECRET]), SECRET)).toEqual(event)
  })

  it('reads a fetch Headers and Node’s header object alike (any case)', () => {
    const headers = signed([SECRET])
    expect(verifyWebhook(body, new Headers(headers), SECRET)).toEqual(event)
    const shouted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]))
    expect(verifyWebhook(body, shouted, SECRET)).toEqual(event)
  })

  it('accepts either signature during a rotation (new and old secret, space-separated)', () => {
    const headers = signed([SECRET, OLD_SECRET])
    expect(verifyWebhook(body, headers, SECRET)).toEqual(event)
    expect(verifyWebhook(body, headers, OLD_SECRET)).toEqual(event)
  })

  it('throws on another secret’s signature, a changed body or a missing header', () => {
    expect(() => verifyWebhook(body, signed([OLD_SECRET]), SECRET)).toThrow(WebhookVerificationError)
    const tampered = body.replace('pago', 'canceled')
    expect(() => verifyWebhook(tampered, signed([SECRET]), SECRET)).toThrow(WebhookVerificationError)
    const { 'webhook-signature': _, ...unsigned } = signed([SECRET])
    expect(() => verifyWebhook(body, unsigned, SECRET)).toThrow(WebhookVerificationError)
  })

  it('throws on a timestamp more than 5 minutes away (a replay), and accepts one within', () => {
    const now = Math.floor(Date.now() / 1000)
    expect(() => verifyWebhook(body, signed([SECRET], now - 6 * 60), SECRET)).toThrow(/too old/)
    expect(() => verifyWebhook(body, signed([SECRET], now + 6 * 60), SECRET)).toThrow(/too new/)
    expect(verifyWebhook(body, signed([SECRET], now - 4 * 60), SECRET)).toEqual(event)
  })

  it('refuses a missing, empty or malformed secret, or a parsed body, with a TypeError saying what is wrong', () => {
    const headers = signed([SECRET])
    for (const secret of [undefined, '', 'whsec_', 'not a secret']) {
      expect(() => verifyWebhook(body, headers, secret as string)).toThrow(TypeError)
      expect(() => verifyWebhook(body, headers, secret as string)).toThrow(
        /secret must be the endpoint's signing secret/,
      )
    }
    expect(() => verifyWebhook(body, headers, '')).toThrow(/got an empty string/)
    expect(() => verifyWebhook(event as unknown as string, headers, SECRET)).toThrow(
      /body must be the raw text received \(got object\)/,
    )
  })
})
