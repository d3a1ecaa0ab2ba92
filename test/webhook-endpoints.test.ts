import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { deliverWebhooksOnce } from '../src/worker/webhooks.job.js'
import { expectedError } from './helpers/errors.js'
import { buildCheckedApp, createTestApp, useTestApp } from './helpers/test-app.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'
import { bearer, credentialsFor, login, partnerWithToken, seedPartner } from './helpers/world.js'

// The webhook endpoints (README, Webhooks): create, list, get, patch, delete, rotate-secret, ping,
// deliveries, redeliver; the bad inputs; the URL rules in test and in production.

let app: App
let token: string
let otherToken: string

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, as = token) =>
  app.inject({ method, url, headers: bearer(as), ...(payload && { payload }) })

const ctx = useTestApp()
beforeAll(async () => {
  app = ctx.app
  token = (await partnerWithToken(app, ctx.db)).token
  otherToken = (await partnerWithToken(app, ctx.db)).token
})

describe('webhook endpoints', () => {
  it('creates with the secret once, lists and gets without it, patches and deletes', async () => {
    const created = await call('POST', '/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hooks',
      events: ['subscription.canceled', 'installment.payment_failed', 'subscription.canceled'],
      description: 'Loja',
      id: 99,
      status: 'disabled',
    })
    expect(created.statusCode).toBe(201)
    const body = created.json()
    expect(body).toMatchObject({
      url: 'http://127.0.0.1:9/hooks',
      events: ['subscription.canceled', 'installment.payment_failed'],
      description: 'Loja',
      status: 'enabled',
    })
    expect(body.id).not.toBe(99)
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(body.secret.slice(6), 'base64')).toHaveLength(32)

    const listed = await call('GET', '/webhook-endpoints')
    expect(listed.json()).toEqual([{ ...body, secret: undefined }].map(({ secret, ...rest }) => rest))
    expect(listed.body).not.toContain(body.secret)
    const got = await call('GET', `/webhook-endpoints/${body.id}`)
    expect(got.body).not.toContain('secret')

    const patched = await call('PATCH', `/webhook-endpoints/${body.id}`, {
      events: ['*'],
      status: 'disabled',
    })
    expect(patched.statusCode).toBe(200)
    expect(patched.json()).toMatchObject({ events: ['*'], status: 'disabled', description: 'Loja' })

    expect((await call('DELETE', `/webhook-endpoints/${body.id}`)).statusCode).toBe(204)
    expect((await call('GET', `/webhook-endpoints/${body.id}`)).statusCode).toBe(404)
    expect((await call('DELETE', `/webhook-endpoints/${body.id}`)).statusCode).toBe(404)
  })

  it('defaults events to ["*"]; "*" among others means all', async () => {
    const a = await call('POST', '/webhook-endpoints', { url: 'http://localhost:9/a' })
    const b = await call('POST', '/webhook-endpoints', {
      url: 'http://localhost:9/b',
      events: ['ping' as never, '*'],
    })
    expect(a.json().events).toEqual(['*'])
    expect(b.statusCode).toBe(422)
    expect(b.json().errors).toHaveProperty('events.0')
    await call('DELETE', `/webhook-endpoints/${a.json().id}`)
  })

  it('refuses bad input with 422 under the field', async () => {
    const cases: [object, string][] = [
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://127.0.0.1/x' }, 'url'],
      [{ url: 'http://user:pw@127.0.0.1/x' }, 'url'],
      [{ url: `http://127.0.0.1/${'a'.repeat(2048)}` }, 'url'],
      [{ url: 'http://10.1.2.3/x' }, 'url'],
      [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
      [{}, 'url'],
      [{ url: 'http://127.0.0.1/x', events: ['subscription.exploded'] }, 'events.0'],
      [{ url: 'http://127.0.0.1/x', events: [] }, 'events'],
      [{ url: 'http://127.0.0.1/x', description: 'x'.repeat(256) }, 'description'],
    ]
    for (const [payload, key] of cases) {
      const response = await call('POST', '/webhook-endpoints', payload)
      expect(response.statusCode, JSON.stringify(payload)).toBe(422)
      expect(Object.keys(response.json().errors), JSON.stringify(payload)).toEqual([key])
    }
  })

  it('refuses an unknown PATCH field and a bad url on PATCH', async () => {
    const { id } = (await call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/p' })).json()
    const unknown = await call('PATCH', `/webhook-endpoints/${id}`, {
      secret: 'whsec_x',
      url: 'http://127.0.0.1:9/q',
    })
    expect(unknown.statusCode).toBe(422)
    expect(unknown.json()).toEqual(
      expectedError(unknown, 'validation_failed', {
        message: 'The secret field cannot be changed.',
        errors: { secret: ['The secret field cannot be changed.'] },
      }),
    )
    const bad = await call('PATCH', `/webhook-endpoints/${id}`, { url: 'http://192.168.0.1/' })
    expect(bad.statusCode).toBe(422)
    expect(bad.json().errors).toHaveProperty('url')
    expect((await call('GET', `/webhook-endpoints/${id}`)).json().url).toBe('http://127.0.0.1:9/p')
    await call('DELETE', `/webhook-endpoints/${id}`)
  })

  it('refuses the 11th endpoint', async () => {
    const { partner } = await partnerWithToken(app, ctx.db)
    const own = await login(app, partner)
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call('POST', '/webhook-endpoints', { url: `http://127.0.0.1:9/${i}` }, own),
      ),
    )
    expect(results.map((r) => r.statusCode).sort()).toEqual([...Array(10).fill(201), 422, 422])
    const refused = results.find((r) => r.statusCode === 422)
    expect(refused?.json().errors).toHaveProperty('url')
    expect((await call('GET', '/webhook-endpoints', undefined, own)).json()).toHaveLength(10)
  })

  it('answers 404 for another partner’s endpoint and event', async () => {
    const { id } = (await call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/mine' })).json()
    const ping = (await call('POST', `/webhook-endpoints/${id}/ping`)).json()
    for (const [method, url, payload] of [
      ['GET', `/webhook-endpoints/${id}`],
      ['PATCH', `/webhook-endpoints/${id}`, { description: 'x' }],
      ['DELETE', `/webhook-endpoints/${id}`],
      ['POST', `/webhook-endpoints/${id}/rotate-secret`],
      ['POST', `/webhook-endpoints/${id}/ping`],
      ['GET', `/webhook-endpoints/${id}/deliveries`],
      ['POST', `/events/${ping.event_id}/redeliver`],
    ] as const) {
      const response = await call(method, url, payload, otherToken)
      expect(response.statusCode, `${method} ${url}`).toBe(404)
    }
    expect((await call('GET', `/webhook-endpoints/${id}`)).json().description).toBeNull()
  })

  it('rotates the secret and pings: the ping event is in the feed', async () => {
    const created = (await call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/r' })).json()
    const rotated = await call('POST', `/webhook-endpoints/${created.id}/rotate-secret`)
    expect(rotated.statusCode).toBe(200)
    expect(rotated.json().secret).toMatch(/^whsec_/)
    expect(rotated.json().secret).not.toBe(created.secret)
    const ping = await call('POST', `/webhook-endpoints/${created.id}/ping`)
    expect(ping.statusCode).toBe(202)
    const event = (await call('GET', `/events/${ping.json().event_id}`)).json()
    expect(event).toMatchObject({ type: 'ping', data: { object: { endpoint_id: created.id } } })
    const redeliver = await call('POST', `/events/${event.id}/redeliver`)
    expect(redeliver.statusCode).toBe(202)
    expect(redeliver.json()).toEqual({ event_id: event.id, deliveries: 1 })
    const deliveries = (await call('GET', `/webhook-endpoints/${created.id}/deliveries?per_page=5`)).json()
    expect(deliveries.meta).toMatchObject({ total: 1, per_page: 5 })
    expect(deliveries.data[0]).toMatchObject({
      event_id: event.id,
      event_type: 'ping',
      status: 'pending',
      attempts: 0,
      last_status_code: null,
      delivered_at: null,
    })
    expect((await call('GET', `/webhook-endpoints/${created.id}/deliveries?per_page=0`)).statusCode).toBe(422)
  })

  it('redelivers one event at most 10 times an hour: 200 calls schedule 10 deliveries, not 200', async () => {
    const created = (await call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/again' })).json()
    const { event_id } = (await call('POST', `/webhook-endpoints/${created.id}/ping`)).json()
    const statuses: number[] = []
    let refused: Awaited<ReturnType<typeof call>> | undefined
    for (let i = 0; i < 200; i++) {
      const response = await call('POST', `/events/${event_id}/redeliver`)
      statuses.push(response.statusCode)
      if (response.statusCode === 429) refused = response
    }
    expect(statuses).toEqual([...Array(10).fill(202), ...Array(190).fill(429)])
    expect(refused?.json()).toEqual(
      expectedError(refused as Awaited<ReturnType<typeof call>>, 'rate_limited', {
        message: expect.stringMatching(
          /^This event was delivered again 10 times in the last hour\. Retry in /,
        ),
      }),
    )
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(59 * 60)
    const deliveries = (await call('GET', `/webhook-endpoints/${created.id}/deliveries`)).json()
    expect(deliveries.meta.total).toBe(10)
    // Another event of the partner is counted on its own.
    const { event_id: other } = (await call('POST', `/webhook-endpoints/${created.id}/ping`)).json()
    expect((await call('POST', `/events/${other}/redeliver`)).statusCode).toBe(202)
  }, 60_000)
})

describe('URL rules in production', () => {
  let database: TestDatabase
  let prod: App
  let live: string

  beforeAll(async () => {
    database = await createTestDatabase({
      env: {
        AMPARO_ENV: 'production',
        AMPARO_PUBLIC_URL: 'https://api.example.com',
        AMPARO_JWT_KEYS: `k1=${randomBytes(48).toString('base64')}`,
      },
    })
    prod = await buildCheckedApp({ config: database.config, db: database.db, logger: false })
    const partner = await seedPartner(database.db)
    const credentials = await credentialsFor(database.db, partner.id, 'production', new Date().toISOString())
    live = await login(prod, {
      id: partner.id,
      clientId: credentials.client_id,
      clientSecret: credentials.client_secret,
    })
  })
  afterAll(async () => {
    await prod?.close()
    await database?.drop()
  })

  it.each([
    ['http (not https)', 'http://93.184.215.14/hook'],
    ['loopback', 'https://127.0.0.1/hook'],
    ['loopback by name (localhost resolves to 127.0.0.1)', 'https://localhost/hook'],
    ['loopback IPv6', 'https://[::1]/hook'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['private 10/8', 'https://10.0.0.1/hook'],
    ['private 172.16/12', 'https://172.16.5.4/hook'],
    ['private 192.168/16', 'https://192.168.1.1/hook'],
    ['link-local / cloud metadata', 'https://169.254.169.254/latest/meta-data'],
    ['link-local IPv6', 'https://[fe80::1]/hook'],
    ['shared (CGNAT)', 'https://100.64.0.1/hook'],
    ['unique-local', 'https://[fd00:ec2::254]/hook'],
    ['multicast', 'https://224.0.0.1/hook'],
    ['unspecified', 'https://0.0.0.0/hook'],
    ['unspecified IPv6', 'https://[::]/hook'],
    ['IPv4-compatible private', 'https://[::10.0.0.1]/hook'],
    ['IPv4-compatible metadata', 'https://[::169.254.169.254]/latest/meta-data'],
    ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/hook'],
    ['NAT64 of a private address', 'https://[64:ff9b::10.0.0.1]/hook'],
    ['6to4 of a private address', 'https://[2002:a00:1::1]/hook'],
    ['a name that does not resolve', 'https://no-such-host.invalid/hook'],
  ])('refuses %s', async (_, url) => {
    const response = await prod.inject({
      method: 'POST',
      url: '/webhook-endpoints',
      headers: bearer(live),
      payload: { url },
    })
    expect(response.statusCode).toBe(422)
    expect(Object.keys(response.json().errors)).toEqual(['url'])
  })

  it('accepts a public https address', async () => {
    const response = await prod.inject({
      method: 'POST',
      url: '/webhook-endpoints',
      headers: bearer(live),
      payload: { url: 'https://93.184.215.14/hook' },
    })
    expect(response.statusCode).toBe(201)
  })
})

describe('the secret in logs', () => {
  it('never appears in the service’s logs (creation, rotation, delivery)', async () => {
    const lines: string[] = []
    const logged = await createTestApp({
      logStream: { write: (line) => void lines.push(line) },
      env: { LOG_LEVEL: 'trace' },
    })
    try {
      const { token: own } = await partnerWithToken(logged.app, logged.db)
      const inject = (method: 'POST' | 'GET', url: string, payload?: object) =>
        logged.app.inject({ method, url, headers: bearer(own), ...(payload && { payload }) })
      const created = (await inject('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/logs' })).json()
      const rotated = (await inject('POST', `/webhook-endpoints/${created.id}/rotate-secret`)).json()
      await inject('POST', `/webhook-endpoints/${created.id}/ping`)
      const log = { debug: (d: object, m: string) => void lines.push(JSON.stringify({ ...d, m })) }
      await deliverWebhooksOnce({
        db: logged.db,
        clock: { now: () => new Date() },
        timeZone: 'UTC',
        env: 'test',
        log: { ...log, info: log.debug, warn: log.debug, error: log.debug },
      })
      expect(lines.length).toBeGreaterThan(3)
      for (const secret of [created.secret, rotated.secret]) {
        expect(lines.join('\n')).not.toContain(secret.slice(6))
      }
    } finally {
      await logged.close()
    }
  })
})
