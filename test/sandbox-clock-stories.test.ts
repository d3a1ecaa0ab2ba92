import { beforeAll, describe, expect, it } from 'vitest'
import { APPROVES_ONCE } from '../src/modules/payments/sandbox-gateway.js'
import { formatDate } from '../src/shared/time.js'
import { annualCard, subscriptionCard, uniqueImei } from './helpers/bodies.js'
import { useTestApp } from './helpers/test-app.js'
import {
  answer,
  galaxyOf,
  seller as newSeller,
  type Seller,
  subscribe as subscribeAt,
} from './helpers/world.js'

// The sandbox clock through HTTP: what a partner sees when it advances its sandbox clock. The clock
// runs at real time plus the partner's offset, so dates are read from the answers, not assumed.

let modelId = 0
const DAY = 86_400

const ctx = useTestApp()
beforeAll(async () => {
  modelId = await galaxyOf(ctx)
})

const seller = (gateway: 'own' | 'external' = 'own') => newSeller(ctx, gateway)
const call = (s: Seller, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, status = 200) =>
  answer(ctx, s, method, url, payload, status)
const subscribe = (s: Seller) => subscribeAt(ctx, s, modelId)

const advance = (s: Seller, body: object) => call(s, 'POST', '/sandbox/clock/advance', body)
const clockOf = (s: Seller) => call(s, 'GET', '/sandbox/clock')
const eventsOf = async (s: Seller, type: string) =>
  (await call(s, 'GET', `/events?type=${type}&limit=100`)).data as {
    created_at: string
    data: { object: Record<string, unknown> }
  }[]
const installmentsOf = (s: Seller, id: number) => call(s, 'GET', `/subscriptions/${id}/installments`)

const payByCard = (s: Seller, id: number, number: string) =>
  call(s, 'POST', `/subscriptions/${id}/payment`, {
    creditCard: { ...subscriptionCard.creditCard, number },
  })

/** Seconds from one `YYYY-MM-DD HH:MM:SS` of the service's zone to another. */
const secondsBetween = (a: string, b: string) =>
  (Date.parse(`${b.replace(' ', 'T')}Z`) - Date.parse(`${a.replace(' ', 'T')}Z`)) / 1000

/** Days from one `YYYY-MM-DD` to another. */
const daysFrom = (a: string, b: string) =>
  (Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000

describe('the renewal-failure story', () => {
  it('declines the renewal on its due date, at the partner’s time, and a new card pays it', async () => {
    const s = await seller()
    const id = await subscribe(s)
    expect((await payByCard(s, id, APPROVES_ONCE)).status).toBe('pago')
    const [, second, third] = await installmentsOf(s, id)

    const moved = await advance(s, { days: 31 })
    expect(moved.advanced_by_seconds).toBe(31 * DAY)
    expect(moved.jobs.days).toBe(31)
    expect(moved.jobs.recurrence.declined).toBeGreaterThanOrEqual(1)
    expect(moved.jobs.recurrence).toMatchObject({ charged: 0, refused: 0, canceled: 0, errors: 0 })
    // Read again a moment later: the same offset, and real time has moved on a little since.
    const again = await clockOf(s)
    expect(again.advanced_by_seconds).toBe(31 * DAY)
    const since = secondsBetween(moved.now, again.now)
    expect(since).toBeGreaterThanOrEqual(0)
    expect(since).toBeLessThan(600)

    const failed = await eventsOf(s, 'installment.payment_failed')
    expect(failed.length).toBe(moved.jobs.recurrence.declined)
    const first = failed[0]
    expect(first?.data.object).toMatchObject({ id: second.id, subscription_id: id, attempts: 1 })
    // Written on the due date of the partner's clock, not today's real date.
    expect(first?.created_at.slice(0, 10)).toBe(second.due_date)
    expect((await installmentsOf(s, id))[1]).toMatchObject({
      status: 'pending',
      last_decline_code: 'card_declined',
    })

    await call(s, 'PUT', `/subscriptions/${id}/card`, subscriptionCard)
    const afterUpdate = await installmentsOf(s, id)
    expect(afterUpdate[1]).toMatchObject({ id: second.id, status: 'paid' })
    expect(afterUpdate[1].paid_at.slice(0, 10)).toBe(moved.now.slice(0, 10))

    // The next renewal goes through on the new card at its due date.
    const later = await advance(s, { days: 31 })
    expect(later.jobs.recurrence).toMatchObject({ charged: 1, declined: 0 })
    const paid = (await installmentsOf(s, id))[2]
    expect(paid).toMatchObject({ id: third.id, status: 'paid' })
    expect(paid.paid_at.slice(0, 10)).toBe(third.due_date)
  })

  it('retries 1, 3 and 5 days after the due date, then refuses and cancels', async () => {
    const s = await seller()
    const id = await subscribe(s)
    await payByCard(s, id, APPROVES_ONCE)
    const due = (await installmentsOf(s, id))[1].due_date as string

    const moved = await advance(s, { days: 40 })
    expect(moved.jobs.recurrence).toEqual({ charged: 0, declined: 4, refused: 1, canceled: 1, errors: 0 })
    const failed = await eventsOf(s, 'installment.payment_failed')
    expect(failed.map((e) => daysFrom(due, e.created_at.slice(0, 10)))).toEqual([0, 1, 3, 5])
    expect(failed.map((e) => e.data.object.next_attempt_on)).toEqual([
      ...[1, 3, 5].map((d) => formatDate(new Date(Date.parse(`${due}T12:00:00Z`) + d * DAY * 1000), 'UTC')),
      null,
    ])
    const subscription = await call(s, 'GET', `/subscriptions/${id}`)
    expect(subscription).toMatchObject({ status: 'canceled', cancellation: { reason: 'recurrence_failed' } })
    const [canceled] = await eventsOf(s, 'subscription.canceled')
    expect(canceled?.created_at.slice(0, 10)).toBe(failed[3]?.created_at.slice(0, 10))
  })
})

describe('the 30-day expiry', () => {
  it('cancels a pending subscription on day 30 of the partner’s clock, not before', async () => {
    const s = await seller('external')
    const id = await subscribe(s)
    const created = (await call(s, 'GET', `/subscriptions/${id}`)).created_at as string

    expect((await advance(s, { days: 29 })).jobs.expiry).toEqual({ canceled: 0 })
    expect((await call(s, 'GET', `/subscriptions/${id}`)).status).toBe('pending')

    const moved = await advance(s, { hours: 24 })
    expect(moved.jobs).toMatchObject({ days: 1, expiry: { canceled: 1 } })
    expect(await call(s, 'GET', `/subscriptions/${id}`)).toMatchObject({
      status: 'canceled',
      cancellation: { reason: 'first_installment_unpaid' },
    })
    const [event] = await eventsOf(s, 'subscription.canceled')
    expect(daysFrom(created.slice(0, 10), event?.created_at.slice(0, 10) ?? '')).toBe(30)
  })

  it('contracts at the partner’s time once the clock has moved', async () => {
    const s = await seller('external')
    const { now } = await advance(s, { days: 45 })
    const id = await subscribe(s)
    expect((await call(s, 'GET', `/subscriptions/${id}`)).created_at.slice(0, 10)).toBe(now.slice(0, 10))
    expect((await installmentsOf(s, id))[0].due_date).toBe(now.slice(0, 10))
  })
})

describe('annual plans: coverage and refunds', () => {
  async function paidPlan(s: Seller) {
    const body = { model_id: modelId, customer_id: s.customerId, imei: uniqueImei() }
    const { id } = await call(s, 'POST', '/annual-plans', body, 201)
    return call(s, 'POST', `/annual-plans/${id}/payment`, annualCard)
  }

  it('starts the cover the next day, pays a pro-rata refund after 100 days, ends the cover a year on', async () => {
    const s = await seller()
    const refunded = await paidPlan(s)
    const kept = await paidPlan(s)
    expect([refunded.status, kept.status]).toEqual(['paid', 'paid'])

    const day = await advance(s, { days: 1 })
    expect(day.jobs.coverage).toEqual({ protected: 2, expired: 0 })
    expect((await call(s, 'GET', `/annual-plans/${kept.id}`)).status).toBe('protected')
    const started = await eventsOf(s, 'annual_plan.protected')
    expect(started.map((e) => e.created_at.slice(0, 10))).toEqual([
      day.now.slice(0, 10),
      day.now.slice(0, 10),
    ])

    // Past the 7-day regret period: premium × days of cover left ÷ days of the term.
    const { now } = await advance(s, { days: 100 })
    const request = await call(s, 'PUT', `/annual-plans/${refunded.id}/cancellation`, {})
    const startsOn = refunded.starts_at.slice(0, 10) as string
    const endsOn = refunded.ends_at.slice(0, 10) as string
    const cents = Math.round(refunded.premium * 100)
    const left = daysFrom(now.slice(0, 10), endsOn)
    const expected = Math.round((cents * left) / daysFrom(startsOn, endsOn)) / 100
    expect(request.refund_amount).toBe(expected)
    expect(request.refund_amount).toBeLessThan(refunded.premium)
    const canceled = await call(s, 'POST', `/annual-plans/${refunded.id}/cancellation/${request.protocol}`)
    expect(canceled.cancellation).toMatchObject({ refund_amount: expected, refund_status: 'pending' })

    const paidBy = await advance(s, { hours: 1 })
    expect(paidBy.jobs.refunds).toEqual({
      refunded: 1,
      retried: 0,
      failed: 0,
      errors: 0,
    })
    const refund = (await call(s, 'GET', `/annual-plans/${refunded.id}`)).cancellation
    expect(refund.refund_status).toBe('succeeded')
    expect(refund.refunded_at.slice(0, 10)).toBe(paidBy.now.slice(0, 10))

    const year = await advance(s, { days: 300 })
    expect(year.jobs.coverage).toEqual({ protected: 0, expired: 1 })
    expect((await call(s, 'GET', `/annual-plans/${kept.id}`)).status).toBe('expired')
    const [ended] = await eventsOf(s, 'annual_plan.expired')
    expect(ended?.data.object).toMatchObject({ id: kept.id, status: 'expired' })
    expect(ended?.created_at.slice(0, 10)).toBe(kept.ends_at.slice(0, 10))
  })
})
