import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { isPostgres } from '../src/db/database.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { createPartner } from '../src/modules/partners/partner.service.js'
import { formatDate, systemClock } from '../src/shared/time.js'
import { runJobsOnce } from '../src/worker/worker.js'
import { expectedError } from './helpers/errors.js'
import { buildCheckedApp, createTestApp, type TestContext, useTestApp } from './helpers/test-app.js'
import { interleaving, withPlugin } from './helpers/test-db.js'
import {
  answer,
  bearer,
  credentialsFor,
  galaxyOf,
  seller as newSeller,
  type Seller,
  send as sendAs,
  subscribe as subscribeAt,
} from './helpers/world.js'

// The sandbox clock (docs/decisions.md, Sandbox test clock): its routes, bad input, one advance at a time, a failure midway,
// one partner's time against another's, the regular worker, and production without any of it.

let modelId = 0
const TZ = 'America/Sao_Paulo'
const DAY = 86_400

const ctx = useTestApp()
beforeAll(async () => {
  modelId = await galaxyOf(ctx)
})

const seller = () => newSeller(ctx, 'external')
const send = (s: Seller, method: 'GET' | 'POST', url: string, payload?: object) =>
  sendAs(ctx, s, method, url, payload)
const ok = (s: Seller, method: 'GET' | 'POST', url: string, payload?: object, status = 200) =>
  answer(ctx, s, method, url, payload, status)

const advance = (s: Seller, body: object) => send(s, 'POST', '/sandbox/clock/advance', body)
const offsetOf = async (s: Seller) => (await ok(s, 'GET', '/sandbox/clock')).advanced_by_seconds as number
const subscribe = (s: Seller) => subscribeAt(ctx, s, modelId)
const statusOf = async (s: Seller, id: number) =>
  (await ok(s, 'GET', `/subscriptions/${id}`)).status as string
const setPartner = (
  partnerId: number,
  values: { clock_offset_seconds?: number; clock_advancing_until?: string | null },
) =>
  retryingTransaction(ctx.db, (trx) =>
    trx.updateTable('partners').set(values).where('id', '=', partnerId).execute(),
  )

describe('GET /sandbox/clock', () => {
  it('reads real time until the clock is advanced, then real time plus the advance', async () => {
    const s = await seller()
    const before = await ok(s, 'GET', '/sandbox/clock')
    expect(before.advanced_by_seconds).toBe(0)
    expect(before.now.slice(0, 10)).toBe(formatDate(new Date(), TZ))

    const moved = (await advance(s, { hours: 50 })).json()
    expect(moved.advanced_by_seconds).toBe(50 * 3_600)
    expect(moved.jobs.days).toBe(3)
    const after = await ok(s, 'GET', '/sandbox/clock')
    expect(after.advanced_by_seconds).toBe(50 * 3_600)
    expect(after.now.slice(0, 10)).toBe(formatDate(new Date(Date.now() + 50 * 3_600_000), TZ))
  })
})

describe('POST /sandbox/clock/advance, bad input', () => {
  it.each([
    [{ days: 0 }, ['days']],
    [{ days: -3 }, ['days']],
    [{ days: 401 }, ['days']],
    [{ days: 1.5 }, ['days']],
    [{ days: '3' }, ['days']],
    [{ hours: 0 }, ['hours']],
    [{ hours: 9_601 }, ['hours']],
    [{ hours: 2.5 }, ['hours']],
    [{ days: 1, hours: 1 }, ['days', 'hours']],
    [{}, ['days']],
  ])('%j → 422 under %j, the clock unmoved', async (body, keys) => {
    const s = await seller()
    const response = await advance(s, body)
    expect(response.statusCode, response.body).toBe(422)
    expect(response.json().code).toBe('validation_failed')
    expect(Object.keys(response.json().errors).sort()).toEqual(keys)
    expect(await offsetOf(s)).toBe(0)
  })

  it('takes the bounds themselves', async () => {
    const s = await seller()
    expect((await advance(s, { hours: 1 })).statusCode).toBe(200)
    expect((await advance(s, { days: 400 })).statusCode).toBe(200)
    expect(await offsetOf(s)).toBe(3_600 + 400 * DAY)
  })
})

describe('one advance at a time', () => {
  it('answers 409 to a second advance while the first runs, and moves the clock once', async () => {
    const s = await seller()
    // Every statement yields to the event loop, as over a network: the two requests overlap.
    const racing = await buildCheckedApp({
      config: ctx.config,
      db: withPlugin(ctx.db, interleaving),
      logger: false,
    })
    const advanceOn = (app: App) =>
      app.inject({
        method: 'POST',
        url: '/sandbox/clock/advance',
        headers: bearer(s.token),
        payload: { days: 60 },
      })
    const [a, b] = await Promise.all([advanceOn(racing), advanceOn(racing)]).finally(() => racing.close())
    const statuses = [a.statusCode, b.statusCode].sort()
    expect(statuses).toEqual([200, 409])
    const refused = a.statusCode === 409 ? a : b
    expect(refused.json()).toEqual(
      expectedError(refused, 'clock_advancing', {
        message: 'This clock is being advanced by another request; try again once it ends.',
      }),
    )
    expect(await offsetOf(s)).toBe(60 * DAY)
  })

  it('holds in the database, across processes, until the hold runs out', async () => {
    const s = await seller()
    // Another process's advance holds the clock.
    await setPartner(s.partnerId, { clock_advancing_until: new Date(Date.now() + 60_000).toISOString() })
    expect((await advance(s, { days: 1 })).statusCode).toBe(409)
    expect(await offsetOf(s)).toBe(0)
    // That process died: its hold ran out.
    await setPartner(s.partnerId, { clock_advancing_until: new Date(Date.now() - 1_000).toISOString() })
    expect((await advance(s, { days: 1 })).statusCode).toBe(200)
    expect(await offsetOf(s)).toBe(DAY)
    // Released at the end: the next advance needs no wait.
    expect((await advance(s, { days: 1 })).statusCode).toBe(200)
  })
})

describe('an advance that fails midway', () => {
  const failCancellations = async () => {
    if (isPostgres(ctx.db)) {
      await sql`create function fail_cancellation() returns trigger language plpgsql as
        $$ begin raise exception 'simulated database failure'; end $$`.execute(ctx.db)
      await sql`create trigger fail_cancellation before update on subscriptions for each row
        when (new.status = 'canceled') execute function fail_cancellation()`.execute(ctx.db)
    } else {
      await sql`create trigger fail_cancellation before update on subscriptions
        when new.status = 'canceled' begin select raise(abort, 'simulated database failure'); end`.execute(
        ctx.db,
      )
    }
  }
  const restore = async () => {
    await sql`drop trigger fail_cancellation${isPostgres(ctx.db) ? sql` on subscriptions` : sql``}`.execute(
      ctx.db,
    )
    if (isPostgres(ctx.db)) await sql`drop function fail_cancellation()`.execute(ctx.db)
  }

  it('leaves the clock at the last day fully processed and says so', async () => {
    const s = await seller()
    const id = await subscribe(s)
    await failCancellations()
    try {
      // Day 30 expires the unpaid subscription: that day fails, 29 were done.
      const response = await advance(s, { days: 40 })
      expect(response.statusCode, response.body).toBe(500)
      const body = response.json()
      const clock = await ok(s, 'GET', '/sandbox/clock')
      expect(clock.advanced_by_seconds).toBe(29 * DAY)
      expect(clock.now.slice(0, 10)).toBe(formatDate(new Date(Date.now() + 29 * DAY * 1000), TZ))
      expect(body).toEqual(expectedError(response, 'server_error', { message: expect.any(String) }))
      expect(body.message).toMatch(
        new RegExp(
          `^The advance failed midway; the clock stays at the last day fully processed: ${clock.now.slice(0, 10)} [0-9:]{8}, advanced by ${29 * DAY} seconds\\.$`,
        ),
      )
      expect(await statusOf(s, id)).toBe('pending')
    } finally {
      await restore()
    }
    // The hold was released; advancing again carries on from day 29.
    const again = (await advance(s, { days: 1 })).json()
    expect(again).toMatchObject({ advanced_by_seconds: 30 * DAY, jobs: { expiry: { canceled: 1 } } })
    expect(await statusOf(s, id)).toBe('canceled')
  })
})

describe('one partner’s time against another’s', () => {
  it('moves only the advancing partner’s clock and runs only its jobs', async () => {
    const [a, b] = [await seller(), await seller()]
    const [ofA, ofB] = [await subscribe(a), await subscribe(b)]
    const moved = (await advance(a, { days: 31 })).json()
    expect(moved.jobs.expiry).toEqual({ canceled: 1 })
    expect(await statusOf(a, ofA)).toBe('canceled')
    expect(await statusOf(b, ofB)).toBe('pending')
    expect(await offsetOf(b)).toBe(0)
    const events = async (s: Seller) =>
      (await ok(s, 'GET', '/events?type=subscription.canceled')).data.map(
        (e: { data: { object: { id: number } } }) => e.data.object.id,
      )
    expect(await events(a)).toEqual([ofA])
    expect(await events(b)).toEqual([])
    // B's writes happen at real time.
    const customer = await ok(
      b,
      'POST',
      '/customers',
      {
        name: 'Ana',
        document: '111.444.777-35',
        email: 'ana@example.com',
        phone: '11987654321',
      },
      201,
    )
    expect(customer.created_at.slice(0, 10)).toBe(formatDate(new Date(), TZ))
  })
})

describe('the regular worker', () => {
  it('runs a partner whose clock is ahead at its own time, and skips one being advanced', async () => {
    const [shifted, held, real] = [await seller(), await seller(), await seller()]
    const ids = {
      shifted: await subscribe(shifted),
      held: await subscribe(held),
      real: await subscribe(real),
    }
    // As earlier advances left them (no jobs run since).
    await setPartner(shifted.partnerId, { clock_offset_seconds: 30 * DAY })
    await setPartner(held.partnerId, {
      clock_offset_seconds: 30 * DAY,
      clock_advancing_until: new Date(Date.now() + 60_000).toISOString(),
    })
    const deps = { db: ctx.db, gateway: null, clock: systemClock, timeZone: TZ }

    // Production reads no partner clock: every partner is at real time.
    await runJobsOnce(deps)
    expect(await statusOf(shifted, ids.shifted)).toBe('pending')

    await runJobsOnce({ ...deps, sandboxClocks: true })
    expect(await statusOf(shifted, ids.shifted)).toBe('canceled')
    expect(await statusOf(held, ids.held)).toBe('pending')
    expect(await statusOf(real, ids.real)).toBe('pending')
    const [event] = (await ok(shifted, 'GET', '/events?type=subscription.canceled')).data
    expect(event.created_at.slice(0, 10)).toBe(formatDate(new Date(Date.now() + 30 * DAY * 1000), TZ))
  })
})

describe('production', () => {
  let prod: TestContext
  let token = ''
  let partnerId = 0
  beforeAll(async () => {
    prod = await createTestApp({
      env: {
        AMPARO_ENV: 'production',
        AMPARO_JWT_KEYS: `k1=${randomBytes(48).toString('base64')}`,
        AMPARO_PUBLIC_URL: 'https://api.example.com',
      },
    })
    const now = new Date().toISOString()
    const partner = await retryingTransaction(prod.db, (trx) =>
      createPartner(trx, { name: 'Live', gateway: 'external' }, now),
    )
    partnerId = partner.id
    const credentials = await credentialsFor(prod.db, partner.id, 'production', now)
    const login = await prod.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { client_id: credentials.client_id, client_secret: credentials.client_secret },
    })
    token = login.json().token
  })
  afterAll(() => prod?.close())

  it('has no sandbox routes', async () => {
    for (const [method, url] of [
      ['GET', '/sandbox/clock'],
      ['POST', '/sandbox/clock/advance'],
      ['POST', '/sandbox/claims/1/decision'],
      ['POST', '/sandbox/claims/1/settle'],
      ['GET', '/sandbox/messages'],
      ['POST', '/sandbox/payments/1/pay'],
    ] as const) {
      const response = await prod.app.inject({
        method,
        url,
        headers: bearer(token),
        payload: method === 'POST' ? { days: 1 } : undefined,
      })
      expect(response.statusCode, response.body).toBe(404)
      expect(response.json().code).toBe('not_found')
    }
    const document = (await prod.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/sandbox'))).toEqual([])
    const test = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    expect(
      Object.keys(test.paths)
        .filter((path) => path.startsWith('/sandbox'))
        .sort(),
    ).toEqual([
      '/sandbox/claims/{id}/decision',
      '/sandbox/claims/{id}/settle',
      '/sandbox/clock',
      '/sandbox/clock/advance',
      '/sandbox/messages',
      '/sandbox/payments/{id}/pay',
    ])
  })

  it('ignores a clock offset a test database left behind', async () => {
    await retryingTransaction(prod.db, (trx) =>
      trx
        .updateTable('partners')
        .set({ clock_offset_seconds: 100 * DAY })
        .where('id', '=', partnerId)
        .execute(),
    )
    const response = await prod.app.inject({
      method: 'POST',
      url: '/customers',
      headers: bearer(token),
      payload: { name: 'Ana', document: '111.444.777-35', email: 'ana@example.com', phone: '11987654321' },
    })
    expect(response.statusCode, response.body).toBe(201)
    expect(response.json().created_at.slice(0, 10)).toBe(formatDate(new Date(), TZ))
  })
})
