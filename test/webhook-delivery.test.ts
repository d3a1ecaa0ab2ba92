import { Webhook } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { exampleOf } from '../src/http/http-schemas.js'
import { recordEvent } from '../src/modules/events/event.service.js'
import { Subscription } from '../src/modules/subscriptions/subscription.schemas.js'
import { RETRY_DELAYS } from '../src/modules/webhooks/webhook.rules.js'
import { claimDue, purgeDeliveries } from '../src/modules/webhooks/webhook-delivery.service.js'
import { deliverWebhooksOnce, runWebhookLoop, type WebhookDeps } from '../src/worker/webhooks.job.js'
import { type Receiver, startReceiver } from './helpers/receiver.js'
import { useTestApp } from './helpers/test-app.js'
import {
  bearer,
  contractSubscription,
  galaxyOf,
  login,
  partnerWithToken,
  seller as sellerWithPlans,
  type TestPartner,
} from './helpers/world.js'

// Webhook delivery (README, Webhooks) to a real receiver listening on 127.0.0.1, which verifies the
// signatures with the `standardwebhooks` library; the schedule runs on an injected clock.

let now = new Date('2026-11-21T15:00:00.000Z')
const clock = { now: () => now }
const advance = (seconds: number) => {
  now = new Date(now.getTime() + seconds * 1000)
}

let app: App
let receiver: Receiver

const deps = (overrides: Partial<WebhookDeps> = {}): WebhookDeps => ({
  db: ctx.db,
  clock,
  timeZone: ctx.config.timeZone,
  env: 'test',
  timeoutMs: 1000,
  ...overrides,
})
const deliver = (overrides: Partial<WebhookDeps> = {}) => deliverWebhooksOnce(deps(overrides))

interface Seller {
  partnerId: number
  partner: TestPartner
  token: string
  /** When the token was issued, on the test clock (tokens last an hour). */
  loggedInAt: number
}

async function seller(): Promise<Seller> {
  const { partner, token } = await partnerWithToken(app, ctx.db)
  return { partnerId: partner.id, partner, token, loggedInAt: now.getTime() }
}

async function call(s: Seller, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) {
  if (now.getTime() - s.loggedInAt > 1_800_000) {
    s.token = await login(app, s.partner)
    s.loggedInAt = now.getTime()
  }
  const response = await app.inject({ method, url, headers: bearer(s.token), ...(payload && { payload }) })
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300)
  return response.json()
}

async function endpoint(s: Seller, path: string, events?: string[]) {
  return call(s, 'POST', '/webhook-endpoints', { url: receiver.url(path), ...(events && { events }) })
}

// The object a subscription event carries, as documented (GET /events/{id} is checked against it).
const subscriptionExample = exampleOf(Subscription) as Record<string, unknown>

async function event(s: Seller, type: 'subscription.created' | 'subscription.canceled', id = 1) {
  const object = { ...subscriptionExample, id }
  return retryingTransaction(ctx.db, (trx) =>
    recordEvent(trx, { partnerId: s.partnerId, type, object, now: now.toISOString() }),
  )
}

const deliveries = async (s: Seller, endpointId: number) =>
  (await call(s, 'GET', `/webhook-endpoints/${endpointId}/deliveries?per_page=100`)).data

const headersOf = (r: { headers: Record<string, unknown> }) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
})

const ctx = useTestApp({ clock })
beforeAll(async () => {
  app = ctx.app
  receiver = await startReceiver()
})
afterAll(async () => {
  await receiver?.close()
})
afterEach(async () => {
  // Nothing left due for the next test.
  await retryingTransaction(ctx.db, (trx) =>
    trx.updateTable('webhook_endpoints').set({ status: 'disabled' }).execute(),
  )
})

describe('signed delivery', () => {
  it('POSTs the event as GET /events/{id} shows it, signed; the receiver verifies it', async () => {
    const s = await seller()
    const hook = await endpoint(s, '/signed', ['subscription.created'])
    await endpoint(s, '/other-type', ['subscription.canceled'])
    const id = await event(s, 'subscription.created', 7)
    const result = await deliver()
    expect(result).toMatchObject({ succeeded: 1, retried: 0 })
    expect(receiver.at('/other-type')).toHaveLength(0)
    const [request] = receiver.at('/signed')
    expect(request?.headers['content-type']).toBe('application/json')
    expect(request?.headers['webhook-id']).toBe(id)
    const payload = new Webhook(hook.secret).verify(
      request?.body ?? '',
      headersOf(request ?? { headers: {} }),
    )
    expect(payload).toEqual(await call(s, 'GET', `/events/${id}`))
    expect(request?.body).toBe(JSON.stringify(await call(s, 'GET', `/events/${id}`)))
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32).toString('base64')}`).verify(
        request?.body ?? '',
        headersOf(request ?? { headers: {} }),
      ),
    ).toThrow()
    const [row] = await deliveries(s, hook.id)
    expect(row).toMatchObject({
      event_id: id,
      event_type: 'subscription.created',
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
      delivered_at: '2026-11-21 12:00:00',
    })
    // Delivered once: nothing more to do.
    expect(await deliver()).toMatchObject({ succeeded: 0, dispatched: 0 })
  })

  it('sends a ping to its endpoint alone, and redelivers with the same webhook-id', async () => {
    const s = await seller()
    const a = await endpoint(s, '/ping-a')
    await endpoint(s, '/ping-b')
    const { event_id } = await call(s, 'POST', `/webhook-endpoints/${a.id}/ping`)
    await deliver()
    expect(receiver.at('/ping-a').map((r) => JSON.parse(r.body).data.object)).toEqual([{ endpoint_id: a.id }])
    expect(receiver.at('/ping-b')).toHaveLength(0)
    await call(s, 'POST', `/events/${event_id}/redeliver`)
    await deliver()
    expect(receiver.at('/ping-a').map((r) => r.headers['webhook-id'])).toEqual([event_id, event_id])
  })

  it('signs with both secrets for 24 h after a rotation, then with the new one alone', async () => {
    const s = await seller()
    const hook = await endpoint(s, '/rotated')
    const { secret } = await call(s, 'POST', `/webhook-endpoints/${hook.id}/rotate-secret`)
    await event(s, 'subscription.created')
    await deliver()
    const [first] = receiver.at('/rotated')
    expect(String(first?.headers['webhook-signature']).split(' ')).toHaveLength(2)
    for (const key of [hook.secret, secret]) {
      expect(() =>
        new Webhook(key).verify(first?.body ?? '', headersOf(first ?? { headers: {} })),
      ).not.toThrow()
    }
    advance(24 * 3600 + 1)
    await event(s, 'subscription.created')
    await deliver()
    const second = receiver.at('/rotated')[1]
    expect(String(second?.headers['webhook-signature']).split(' ')).toHaveLength(1)
    expect(() =>
      new Webhook(secret).verify(second?.body ?? '', headersOf(second ?? { headers: {} })),
    ).not.toThrow()
    expect(() =>
      new Webhook(hook.secret).verify(second?.body ?? '', headersOf(second ?? { headers: {} })),
    ).toThrow()
  })
})

describe('from its registration on', () => {
  it('receives no event created before the endpoint, even when the dispatcher runs later', async () => {
    const galaxy = await galaxyOf(ctx)
    const w = await sellerWithPlans(ctx)
    const s: Seller = {
      partnerId: w.partnerId,
      partner: w.partner,
      token: w.token,
      loggedInAt: now.getTime(),
    }
    await endpoint(s, '/older')
    const before = await contractSubscription(ctx, w, galaxy)
    advance(1)
    // Registered after the first contract; nothing dispatched in between (a worker behind).
    const newer = await endpoint(s, '/newer')
    advance(1)
    const after = await contractSubscription(ctx, w, galaxy)
    await deliver()
    // Deliveries are unordered: the subscriptions each endpoint heard of, in id order.
    const contracted = (path: string) =>
      receiver
        .at(path)
        .map((r) => JSON.parse(r.body).data.object.id as number)
        .sort((x, y) => x - y)
    expect(contracted('/older')).toEqual([before.id, after.id])
    expect(contracted('/newer')).toEqual([after.id])
    expect(await deliveries(s, newer.id)).toHaveLength(1)
    // A redelivery is the partner's explicit request: every enabled endpoint subscribed, the newer too.
    const [first] = (await call(s, 'GET', '/events?type=subscription.created')).data
    expect(first.data.object.id).toBe(before.id)
    expect(await call(s, 'POST', `/events/${first.id}/redeliver`)).toEqual({
      event_id: first.id,
      deliveries: 2,
    })
    await deliver()
    expect(contracted('/newer')).toEqual([before.id, after.id])
  })
})

describe('failures', () => {
  it('retries 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h, 24 h (±10 %), then fails', async () => {
    const s = await seller()
    receiver.status('/down', 503)
    const hook = await endpoint(s, '/down')
    await event(s, 'subscription.created')
    await deliver()
    for (const delay of RETRY_DELAYS) {
      const [row] = await deliveries(s, hook.id)
      expect(row.status).toBe('pending')
      const due = Date.parse(`${row.next_attempt_at.replace(' ', 'T')}-03:00`)
      const wait = (due - now.getTime()) / 1000
      expect(wait).toBeGreaterThanOrEqual(Math.floor(delay * 0.9) - 1)
      expect(wait).toBeLessThanOrEqual(Math.ceil(delay * 1.1))
      advance(Math.max(0, wait - 2))
      const early = receiver.at('/down').length
      await deliver()
      expect(receiver.at('/down')).toHaveLength(early)
      advance(3)
      await deliver()
      expect(receiver.at('/down')).toHaveLength(early + 1)
      // Keeps the endpoint enabled for this test: only the schedule is under test here.
      await retryingTransaction(ctx.db, (trx) =>
        trx.updateTable('webhook_endpoints').set({ failing_since: null }).execute(),
      )
    }
    const [row] = await deliveries(s, hook.id)
    expect(row).toMatchObject({ status: 'failed', attempts: 9, last_status_code: 503, next_attempt_at: null })
    expect(row.last_error).toBe('HTTP 503')
  })

  it('disables the endpoint on a 410', async () => {
    const s = await seller()
    receiver.status('/gone', 410)
    const hook = await endpoint(s, '/gone')
    await event(s, 'subscription.created')
    expect(await deliver()).toMatchObject({ disabled: 1 })
    expect((await call(s, 'GET', `/webhook-endpoints/${hook.id}`)).status).toBe('disabled')
    expect((await deliveries(s, hook.id))[0]).toMatchObject({ status: 'failed', last_status_code: 410 })
    // Enabled again by the partner, it receives again.
    receiver.status('/gone', 200)
    await call(s, 'PATCH', `/webhook-endpoints/${hook.id}`, { status: 'enabled' })
    await call(s, 'POST', `/webhook-endpoints/${hook.id}/ping`)
    expect(await deliver()).toMatchObject({ succeeded: 1 })
  })

  it('disables an endpoint whose attempts have all failed for 3 days', async () => {
    const s = await seller()
    receiver.status('/failing', 500)
    const hook = await endpoint(s, '/failing')
    await event(s, 'subscription.created')
    await deliver()
    // Attempts at 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h: about 41.6 h of failures.
    for (let hours = 0; hours < 48; hours += 1) {
      advance(3600)
      await deliver()
    }
    expect((await call(s, 'GET', `/webhook-endpoints/${hook.id}`)).status).toBe('enabled')
    // The next attempt (24 h ± 10 % later) comes past 3 days of failures.
    advance(27 * 3600)
    expect(await deliver()).toMatchObject({ disabled: 1 })
    expect((await call(s, 'GET', `/webhook-endpoints/${hook.id}`)).status).toBe('disabled')
  })

  it('forgets failures after a success', async () => {
    const s = await seller()
    receiver.status('/flaky', 500)
    const hook = await endpoint(s, '/flaky')
    await event(s, 'subscription.created')
    await deliver()
    advance(2 * 86_400)
    receiver.status('/flaky', 200)
    await deliver()
    receiver.status('/flaky', 500)
    advance(2 * 86_400)
    await event(s, 'subscription.created')
    expect(await deliver()).toMatchObject({ retried: 1, disabled: 0 })
    expect((await call(s, 'GET', `/webhook-endpoints/${hook.id}`)).status).toBe('enabled')
  })

  it('does not follow a redirect', async () => {
    const s = await seller()
    receiver.status('/moved', 302, { location: receiver.url('/target') })
    const hook = await endpoint(s, '/moved')
    await event(s, 'subscription.created')
    expect(await deliver()).toMatchObject({ retried: 1 })
    expect(receiver.at('/target')).toHaveLength(0)
    expect((await deliveries(s, hook.id))[0]).toMatchObject({
      last_status_code: 302,
      last_error: 'redirect (HTTP 302) not followed',
    })
  })

  it('bounds a huge answer and a connection that never answers to one attempt each', async () => {
    const s = await seller()
    receiver.on('/huge', (_req, res) => {
      res.writeHead(200)
      const chunk = Buffer.alloc(1024 * 1024, 'x')
      const write = () => {
        while (res.write(chunk)) {}
        res.once('drain', write)
      }
      write()
      res.on('error', () => {})
    })
    receiver.hold('/silent')
    const huge = await endpoint(s, '/huge')
    const silent = await endpoint(s, '/silent')
    await event(s, 'subscription.created')
    const started = Date.now()
    expect(await deliver({ timeoutMs: 500 })).toMatchObject({ succeeded: 1, retried: 1 })
    expect(Date.now() - started).toBeLessThan(3000)
    expect((await deliveries(s, huge.id))[0]).toMatchObject({ status: 'succeeded' })
    expect((await deliveries(s, silent.id))[0]).toMatchObject({
      status: 'pending',
      last_status_code: null,
      last_error: 'no answer within 0.5 s',
    })
  })

  it('retries a delivery whose worker died after its lease runs out', async () => {
    const s = await seller()
    const hook = await endpoint(s, '/lease')
    await event(s, 'subscription.created')
    await deliver() // dispatches and delivers
    const id = await event(s, 'subscription.created')
    // A worker dispatches and claims, then dies before attempting.
    await deliverWebhooksOnce(deps({ lanes: 0 }))
    const [claimed] = await claimDue(ctx.db, { now, limit: 10, perEndpoint: 10, leaseSeconds: 30 })
    expect(claimed?.public_id).toBe(id)
    expect(await deliver()).toMatchObject({ succeeded: 0 })
    advance(31)
    expect(await deliver()).toMatchObject({ succeeded: 1 })
    const rows = await deliveries(s, hook.id)
    expect(rows[0]).toMatchObject({ event_id: id, status: 'succeeded', attempts: 2 })
  })
})

describe('isolation', () => {
  // The second: the worker's deps carry the recurrence's `concurrency` (JobDeps), 20 by default, as
  // many as one endpoint may hold; the loop must not take it for its own lanes.
  it.each([
    ['its lanes', { lanes: 20 }],
    ['the recurrence’s concurrency among the deps', { concurrency: 5 }],
  ])(
    'a hanging endpoint does not delay another partner’s delivery (%s)',
    async (_, limits) => {
      const slow = await seller()
      const fast = await seller()
      receiver.hold('/hanging')
      await endpoint(slow, '/hanging')
      for (let i = 0; i < 40; i++) await event(slow, 'subscription.created', i)
      const controller = new AbortController()
      const realClock = { now: () => new Date() }
      const loop = runWebhookLoop(deps({ clock: realClock, timeoutMs: 10_000, perEndpoint: 5, ...limits }), {
        signal: controller.signal,
        pollMs: 100,
      })
      try {
        // The hanging endpoint's lanes fill up to its cap (5), and no further: the end of this test
        // finds it still at 5, after another partner's delivery went through beside it.
        await expect.poll(() => receiver.at('/hanging').length, { timeout: 10_000, interval: 20 }).toBe(5)
        await endpoint(fast, '/fast')
        const committed = Date.now()
        await event(fast, 'subscription.created')
        while (receiver.at('/fast').length === 0 && Date.now() - committed < 5000) {
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        const lag = Date.now() - committed
        expect(receiver.at('/fast')).toHaveLength(1)
        expect(lag).toBeLessThan(2000)
        expect(receiver.at('/hanging').length).toBe(5)
      } finally {
        controller.abort()
        await receiver.close().catch(() => {})
        await loop
        receiver = await startReceiver()
      }
    },
    30_000,
  )
})

describe('address rules at delivery (production)', () => {
  it('refuses to connect to a host resolving to loopback, and plain http', async () => {
    const s = await seller()
    const hook = await endpoint(s, '/private')
    // Registered in test; the same rows delivered under production rules (as if DNS had changed).
    await retryingTransaction(ctx.db, (trx) =>
      trx
        .updateTable('webhook_endpoints')
        .set({ url: `https://localhost:${receiver.port}/private` })
        .where('id', '=', hook.id)
        .execute(),
    )
    const plain = await endpoint(s, '/plain')
    await event(s, 'subscription.created')
    expect(await deliver({ env: 'production' })).toMatchObject({ retried: 2 })
    expect(receiver.at('/private')).toHaveLength(0)
    expect(receiver.at('/plain')).toHaveLength(0)
    expect((await deliveries(s, hook.id))[0].last_error).toBe(
      'refused: the host resolves to a private or reserved address',
    )
    expect((await deliveries(s, plain.id))[0].last_error).toBe('The url must use https.')
  })
})

describe('purge', () => {
  it('deletes deliveries older than 30 days with the events', async () => {
    const s = await seller()
    const hook = await endpoint(s, '/purged')
    await event(s, 'subscription.created')
    await deliver()
    expect(await deliveries(s, hook.id)).toHaveLength(1)
    await purgeDeliveries(ctx.db, new Date(now.getTime() + 29 * 86_400_000))
    expect(await deliveries(s, hook.id)).toHaveLength(1)
    expect(await purgeDeliveries(ctx.db, new Date(now.getTime() + 31 * 86_400_000))).toBeGreaterThanOrEqual(1)
    expect(await deliveries(s, hook.id)).toHaveLength(0)
  })
})
