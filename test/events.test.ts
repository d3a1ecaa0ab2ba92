import { beforeAll, describe, expect, it } from 'vitest'
import { isPostgres } from '../src/db/database.js'
import { exampleOf } from '../src/http/http-schemas.js'
import { advanceCoverageClock } from '../src/modules/annual-plans/annual-plan-lifecycle.service.js'
import { purgeEvents, recordEvent, renderingContext } from '../src/modules/events/event.service.js'
import { SandboxGateway } from '../src/modules/payments/sandbox-gateway.js'
import { Subscription } from '../src/modules/subscriptions/subscription.schemas.js'
import { expirePendingSubscriptions } from '../src/worker/pending-expiry.job.js'
import { runRecurrence } from '../src/worker/recurrence.job.js'
import type { Event } from './helpers/api-types.js'
import { uniqueImei } from './helpers/bodies.js'
import { useTestApp } from './helpers/test-app.js'
import { plainTransaction } from './helpers/test-db.js'
import {
  ANNUAL,
  bearer,
  createCustomer,
  login,
  seedCatalog,
  seedPartner,
  seedPlan,
  type TestPartner,
  TOTAL_12X,
} from './helpers/world.js'

// Every event type through the API and the worker, the feed's cursor, and the outbox gap, on the
// database the run points at (SQLite in memory, or a PostgreSQL schema with DATABASE_URL).

const TZ = 'America/Sao_Paulo'
/** Wall-clock time in São Paulo (UTC−3 all year) as an instant. */
const at = (date: string, time = '12:00') => new Date(`${date}T${time}:00-03:00`)
let now = at('2026-11-21')
const clock = { now: () => now }

const APPROVES = '4111111111111111'
const DECLINED = '4000000000000002'
const DECLINES_LATER = '4000000000000341'
const cardOf = (number: string) => ({ creditCard: { number, expiry: '1230', cvv: '123', holder: 'MARIA' } })

interface Seller {
  partner: TestPartner
  token: string
  planId: number
  customerId: number
}

const ctx = useTestApp({
  clock,
  env: { AMPARO_LOGIN_RATE_LIMIT: '100000', AMPARO_PUBLIC_URL: 'https://api.amparo.test' },
})
let own: Seller
let external: Seller
let other: Seller
let modelId: number

async function seller(gateway: 'own' | 'external'): Promise<Seller> {
  const partner = await seedPartner(ctx.db, gateway)
  const token = await login(ctx.app, partner)
  const plan = await seedPlan(ctx.db, partner.id, TOTAL_12X)
  await seedPlan(ctx.db, partner.id, ANNUAL)
  const customer = await createCustomer(ctx.app, token)
  return { partner, token, planId: plan.id, customerId: customer.id }
}

/** Moves the clock; tokens last an hour, so every seller logs in again. */
async function setClock(instant: Date) {
  now = instant
  for (const s of [own, external, other]) s.token = await login(ctx.app, s.partner)
}

async function call(s: Seller, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  return ctx.app.inject({ method, url, headers: bearer(s.token), ...(payload && { payload }) })
}

async function ok(s: Seller, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const response = await call(s, method, url, payload)
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300)
  return response.json()
}

/** Every event of the seller after `after`, walking the feed 7 at a time. */
async function feed(s: Seller, after?: string): Promise<Event[]> {
  const events: Event[] = []
  let cursor = after
  for (;;) {
    const page = await ok(s, 'GET', `/events?limit=7${cursor ? `&after=${cursor}` : ''}`)
    events.push(...page.data)
    if (!page.has_more) return events
    cursor = page.data.at(-1).id
  }
}

/** The events written since the last call, per seller: what a partner polling with `after` receives. */
const cursors = new Map<Seller, string | undefined>()
async function newEvents(s: Seller): Promise<Event[]> {
  const events = await feed(s, cursors.get(s))
  if (events.length > 0) cursors.set(s, events.at(-1)?.id)
  return events
}

const contract = (s: Seller) =>
  ok(s, 'POST', '/subscriptions', { plan_id: s.planId, customer_id: s.customerId, model_id: modelId })
const installmentsOf = (s: Seller, id: number) => ok(s, 'GET', `/subscriptions/${id}/installments`)

beforeAll(async () => {
  const catalog = await seedCatalog(ctx.db)
  modelId = catalog.model('iPhone 16 Pro').id
  own = await seller('own')
  external = await seller('external')
  other = await seller('external')
})

describe('subscription and installment events', () => {
  it('contract, notify, cancel: each change writes its event with the resource as GET shows it', async () => {
    await newEvents(external)
    const created = await contract(external)
    const [first] = await installmentsOf(external, created.id)
    await ok(external, 'POST', `/subscriptions/${created.id}/installments/${first.id}/notify-payment`)
    const active = await ok(external, 'GET', `/subscriptions/${created.id}`)
    const [paidFirst] = await installmentsOf(external, created.id)
    await ok(external, 'POST', `/subscriptions/${created.id}/cancellation`, { reason: 'Cliente desistiu.' })
    const canceled = await ok(external, 'GET', `/subscriptions/${created.id}`)

    const events = await newEvents(external)
    expect(events.map((e) => e.type)).toEqual([
      'subscription.created',
      'installment.paid',
      'subscription.activated',
      'subscription.canceled',
    ])
    expect(events.map((e) => e.data.object)).toEqual([created, paidFirst, active, canceled])
    for (const event of events) {
      expect(event.id).toMatch(/^evt_[0-9a-f]{32}$/)
      expect(event.created_at).toBe('2026-11-21 12:00:00')
      expect(await ok(external, 'GET', `/events/${event.id}`)).toEqual(event)
    }
    expect(paidFirst).toMatchObject({ subscription_id: created.id, status: 'paid', attempts: 0 })
    expect(canceled.cancellation).toEqual({
      reason: 'partner_request',
      canceled_at: '2026-11-21 12:00:00',
      comment: 'Cliente desistiu.',
    })
  })

  it('a declined first payment is installment.payment_failed, with no retry of its own', async () => {
    await newEvents(own)
    const created = await contract(own)
    expect(
      (await call(own, 'POST', `/subscriptions/${created.id}/payment`, cardOf(DECLINED))).statusCode,
    ).toBe(402)
    await ok(own, 'POST', `/subscriptions/${created.id}/payment`, cardOf(APPROVES))
    const events = await newEvents(own)
    expect(events.map((e) => e.type)).toEqual([
      'subscription.created',
      'installment.payment_failed',
      'installment.paid',
      'subscription.activated',
    ])
    expect(events[1]?.data.object).toMatchObject({
      subscription_id: created.id,
      number: 1,
      status: 'refused',
      attempts: 1,
      last_decline_code: 'card_declined',
      next_attempt_on: null,
    })
  })

  it('the recurrence: each decline with its retry day, then the cancellation for recurrence_failed', async () => {
    const created = await contract(own)
    await ok(own, 'POST', `/subscriptions/${created.id}/payment`, cardOf(DECLINES_LATER))
    await newEvents(own)
    const gateway = new SandboxGateway()
    for (const day of ['2026-12-21', '2026-12-22', '2026-12-24', '2026-12-26']) {
      await setClock(at(day))
      await runRecurrence({ db: ctx.db, clock, timeZone: TZ, gateway, base: ctx.config.publicUrl })
    }
    const events = (await newEvents(own)).filter(
      (e) => (objectOf(e).subscription_id ?? objectOf(e).id) === created.id,
    )
    expect(events.map((e) => e.type)).toEqual([
      ...Array(4).fill('installment.payment_failed'),
      'subscription.canceled',
    ])
    expect(events.slice(0, 4).map((e) => e.data.object)).toEqual(
      [
        [1, '2026-12-22'],
        [2, '2026-12-24'],
        [3, '2026-12-26'],
        [4, null],
      ].map(([attempts, next]) =>
        expect.objectContaining({
          subscription_id: created.id,
          number: 2,
          attempts,
          last_decline_code: 'card_declined',
          next_attempt_on: next,
        }),
      ),
    )
    expect(events[4]?.data.object).toEqual(await ok(own, 'GET', `/subscriptions/${created.id}`))
    expect(objectOf(events[4]).cancellation).toMatchObject({ reason: 'recurrence_failed', comment: null })
    expect(events[4]?.created_at).toBe('2026-12-26 12:00:00')
  })

  it('the expiry of an unpaid subscription by the worker: canceled for first_installment_unpaid', async () => {
    await setClock(at('2027-01-01'))
    const created = await contract(external)
    await newEvents(external)
    await setClock(at('2027-01-31'))
    await expirePendingSubscriptions({
      db: ctx.db,
      clock,
      timeZone: TZ,
      base: ctx.config.publicUrl,
    })
    const events = await newEvents(external)
    expect(events.map((e) => [e.type, objectOf(e).id])).toEqual([['subscription.canceled', created.id]])
    expect(objectOf(events[0]).cancellation).toEqual({
      reason: 'first_installment_unpaid',
      canceled_at: '2027-01-31 12:00:00',
      comment: null,
    })
  })
})

describe('annual plan events', () => {
  const contractPlan = (s: Seller) =>
    ok(s, 'POST', '/annual-plans', {
      model_id: modelId,
      customer_id: s.customerId,
      imei: uniqueImei(),
      payment: { method: 'pix' },
    })

  it('created, paid, protected by the first read, expired by the worker: each once', async () => {
    await setClock(at('2027-02-01'))
    await newEvents(external)
    const plan = await contractPlan(external)
    await ok(external, 'POST', `/annual-plans/${plan.id}/notify-payment`)
    const paid = await ok(external, 'GET', `/annual-plans/${plan.id}`)
    expect((await newEvents(external)).map((e) => [e.type, e.data.object])).toEqual([
      ['annual_plan.created', plan],
      ['annual_plan.paid', paid],
    ])

    // Cover starts at 00:00 of the next day: the first read that shows it writes the event.
    await setClock(at('2027-02-02', '00:00'))
    const shown = await ok(external, 'GET', `/annual-plans/${plan.id}`)
    expect(shown).toMatchObject({ status: 'protected', updated_at: '2027-02-02 00:00:00' })
    await ok(external, 'GET', `/annual-plans?filter[status]=protected`)
    await advanceCoverageClock(ctx.db, now.toISOString(), renderingContext(ctx.config))
    expect((await newEvents(external)).map((e) => [e.type, e.data.object])).toEqual([
      ['annual_plan.protected', shown],
    ])

    await setClock(at('2028-02-02', '00:01'))
    await advanceCoverageClock(ctx.db, now.toISOString(), renderingContext(ctx.config))
    await ok(external, 'GET', `/annual-plans/${plan.id}`)
    const expired = await newEvents(external)
    expect(expired.map((e) => [e.type, objectOf(e).id, objectOf(e).status])).toEqual([
      ['annual_plan.expired', plan.id, 'expired'],
    ])
  })

  it('a cancellation requested (once, however often the PUT is repeated), then confirmed', async () => {
    const plan = await contractPlan(external)
    await newEvents(external)
    const request = await ok(external, 'PUT', `/annual-plans/${plan.id}/cancellation`, {
      reason: 'Desistiu.',
    })
    await ok(external, 'PUT', `/annual-plans/${plan.id}/cancellation`, {})
    const requested = await ok(external, 'GET', `/annual-plans/${plan.id}`)
    const confirmed = await ok(external, 'POST', `/annual-plans/${plan.id}/cancellation/${request.protocol}`)
    await ok(external, 'POST', `/annual-plans/${plan.id}/cancellation/${request.protocol}`)
    expect((await newEvents(external)).map((e) => [e.type, e.data.object])).toEqual([
      ['annual_plan.cancellation_requested', requested],
      ['annual_plan.canceled', confirmed],
    ])
    expect(confirmed).toMatchObject({ status: 'canceled', cancellation: { status: 'confirmed' } })
  })
})

describe('GET /events', () => {
  it('pages oldest first with after and limit, and filters by type with the cursor moving over all', async () => {
    const all = await feed(external)
    expect(all.length).toBeGreaterThan(8)
    const first = await ok(external, 'GET', '/events?limit=3')
    expect(first).toEqual({ data: all.slice(0, 3), has_more: true })
    const next = await ok(external, 'GET', `/events?limit=3&after=${all[2]?.id}`)
    expect(next.data).toEqual(all.slice(3, 6))
    const last = await ok(external, 'GET', `/events?after=${all.at(-2)?.id}`)
    expect(last).toEqual({ data: all.slice(-1), has_more: false })
    expect(await ok(external, 'GET', `/events?after=${all.at(-1)?.id}`)).toEqual({
      data: [],
      has_more: false,
    })

    const canceled = await ok(external, 'GET', '/events?type=subscription.canceled&limit=100')
    expect(canceled.data).toEqual(all.filter((e) => e.type === 'subscription.canceled'))
    const afterFirst = await ok(
      external,
      'GET',
      `/events?type=subscription.canceled&after=${canceled.data[0].id}`,
    )
    expect(afterFirst.data).toEqual(canceled.data.slice(1))
    expect((await ok(external, 'GET', '/events')).data).toHaveLength(Math.min(50, all.length))
  })

  it('never shows another partner’s events: 404 for one, none in the feed', async () => {
    const [theirs] = await feed(external)
    const response = await call(other, 'GET', `/events/${theirs?.id}`)
    expect(response.statusCode).toBe(404)
    expect(response.json()).toMatchObject({ code: 'not_found' })
    expect((await call(other, 'GET', '/events/evt_unknown')).statusCode).toBe(404)
    const own = await feed(other)
    expect(own.some((e) => e.id === theirs?.id)).toBe(false)
    const cursor = await call(other, 'GET', `/events?after=${theirs?.id}`)
    expect(cursor.statusCode).toBe(422)
    expect(Object.keys(cursor.json().errors)).toEqual(['after'])
  })

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['type=subscription.renewed', 'type'],
    ['after=evt_nope', 'after'],
  ])('refuses %s with 422 under %s', async (query, field) => {
    const response = await call(external, 'GET', `/events?${query}`)
    expect(response.statusCode).toBe(422)
    expect(Object.keys(response.json().errors)).toEqual([field])
  })
})

/** An event's resource, whatever its type: the assertions read its fields by name. */
const objectOf = (event: Event | undefined) =>
  (event?.data.object ?? {}) as {
    id?: number
    subscription_id?: number
    status?: string
    cancellation?: unknown
  }

/** A subscription as its GET shows one: what a `subscription.*` event carries (the document says so). */
const subscriptionExample = exampleOf(Subscription) as Record<string, unknown>

describe('the outbox gap', () => {
  it.skipIf(!process.env.DATABASE_URL)(
    'an event whose transaction started first and committed last is still seen, once, after the cursor',
    async () => {
      expect(isPostgres(ctx.db)).toBe(true)
      const partnerId = other.partner.id
      const event = (n: number) => ({
        partnerId,
        type: 'subscription.created' as const,
        object: { ...subscriptionExample, id: n },
        now: now.toISOString(),
      })
      const seen = await newEvents(other)
      expect(seen).toEqual([])
      // T1 inserts its event first and stays open…
      let commitFirst: () => void = () => {}
      let firstInserted: () => void = () => {}
      const inserted = new Promise<void>((resolve) => {
        firstInserted = resolve
      })
      const first = plainTransaction(ctx.db, async (trx) => {
        await recordEvent(trx, event(1))
        firstInserted()
        await new Promise<void>((resolve) => {
          commitFirst = resolve
        })
      })
      await inserted
      // …while T2 inserts after it and commits, and the partner polls.
      await plainTransaction(ctx.db, (trx) => recordEvent(trx, event(2)))
      expect((await newEvents(other)).map((e) => objectOf(e).id)).toEqual([2])
      commitFirst()
      await first
      expect((await newEvents(other)).map((e) => objectOf(e).id)).toEqual([1])
      expect(await newEvents(other)).toEqual([])
      // From the start, each exactly once, in the order they became visible.
      expect((await feed(other)).map((e) => objectOf(e).id)).toEqual([2, 1])
    },
  )

  it('a committed event is seen once after the cursor (on SQLite, one writer: insertion order is commit order)', async () => {
    await plainTransaction(ctx.db, async (trx) => {
      await recordEvent(trx, {
        partnerId: other.partner.id,
        type: 'subscription.created',
        object: { ...subscriptionExample, id: 3 },
        now: now.toISOString(),
      })
    })
    expect((await newEvents(other)).map((e) => objectOf(e).id)).toEqual([3])
  })
})

describe('the purge', () => {
  it('deletes events older than 30 days, but never the newest', async () => {
    const before = await feed(external)
    const recent = before.filter((e) => e.created_at >= '2028-01-03')
    expect(recent.length).toBeGreaterThan(0)
    expect(recent.length).toBeLessThan(before.length)
    // The clock reads 2028-02-02: what is older than 2028-01-03 goes, the rest stays.
    // (Every partner's: the other sellers' old events go too.)
    expect(await purgeEvents(ctx.db, now)).toBeGreaterThanOrEqual(before.length - recent.length)
    expect(await feed(external)).toEqual(recent)
    expect((await call(external, 'GET', `/events/${before[0]?.id}`)).statusCode).toBe(404)

    // A year later every event is old; the newest is kept all the same (positions continue from it).
    await purgeEvents(ctx.db, new Date(now.getTime() + 365 * 86_400_000))
    expect(await ctx.db.selectFrom('events').select('public_id').execute()).toHaveLength(1)
  })
})
