import { beforeAll, describe, expect, it } from 'vitest'
import { addMonthsClamped } from '../src/shared/time.js'
import { subscriptionCard } from './helpers/bodies.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, galaxyOf, seller as newSeller, type Seller, send } from './helpers/world.js'

// A subscription ends (README, Subscriptions): once the month of its last installment has passed
// it is `expired`, with one `subscription.expired`, and its device may be protected again. Driven
// by the sandbox clock, whose advance runs the worker's jobs at each day crossed.

let modelId = 0

const ctx = useTestApp()
beforeAll(async () => {
  modelId = await galaxyOf(ctx)
})

const call = (s: Seller, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, status = 200) =>
  answer(ctx, s, method, url, payload, status)
const advance = (s: Seller, days: number) => call(s, 'POST', '/sandbox/clock/advance', { days })
const expiredEvents = async (s: Seller) =>
  (await call(s, 'GET', '/events?type=subscription.expired&limit=100')).data as {
    created_at: string
    data: { object: Record<string, unknown> }
  }[]

let serials = 0
const newSerial = () => `END-${process.pid}-${Date.now()}-${++serials}`

/** A 12-installment subscription on `serial`, its installment 1 paid by card (the recurrence pays the rest). */
async function paidSubscription(s: Seller, serial: string): Promise<number> {
  const body = { plan_id: s.planId, customer_id: s.customerId, model_id: modelId, serial_number: serial }
  const { id } = await call(s, 'POST', '/subscriptions', body, 201)
  expect((await call(s, 'POST', `/subscriptions/${id}/payment`, subscriptionCard)).status).toBe('pago')
  return id
}

const contractOn = (s: Seller, serial: string) =>
  send(ctx, s, 'POST', '/subscriptions', {
    plan_id: s.planId,
    customer_id: s.customerId,
    model_id: modelId,
    serial_number: serial,
  })

/** Days from the partner's today to `date` (both `YYYY-MM-DD`). */
const daysUntil = async (s: Seller, date: string) => {
  const { now } = await call(s, 'GET', '/sandbox/clock')
  return Math.round(
    (Date.parse(`${date}T00:00:00Z`) - Date.parse(`${now.slice(0, 10)}T00:00:00Z`)) / 86_400_000,
  )
}

describe('a subscription paid up to its last installment', () => {
  it('stays pago through the last month, then expires once, by the worker, freeing its device', async () => {
    const s = await newSeller(ctx, 'own')
    const serial = newSerial()
    const id = await paidSubscription(s, serial)
    const installments = await call(s, 'GET', `/subscriptions/${id}/installments`)
    expect(installments).toHaveLength(12)
    // Installment 12 covers the month from its due date to the date a 13th would be due.
    const endsOn = addMonthsClamped(installments[0].due_date, 12)

    // The day before the end: every installment paid, still pago, the device still held.
    const before = await advance(s, (await daysUntil(s, endsOn)) - 1)
    expect(before.jobs.subscription_end).toEqual({ expired: 0 })
    const paid = await call(s, 'GET', `/subscriptions/${id}/installments`)
    expect(paid.map((i: { status: string }) => i.status)).toEqual(Array(12).fill('paid'))
    expect(await call(s, 'GET', `/subscriptions/${id}`)).toMatchObject({
      status: 'pago',
      status_label: 'Pago',
    })
    expect(await expiredEvents(s)).toHaveLength(0)
    const refused = await contractOn(s, serial)
    expect(refused.statusCode).toBe(422)
    expect(refused.json().errors.serial_number).toHaveLength(1)

    // The end day: expired, with its event, once.
    const after = await advance(s, 1)
    expect(after.now.slice(0, 10)).toBe(endsOn)
    expect(after.jobs.subscription_end).toEqual({ expired: 1 })
    const shown = await call(s, 'GET', `/subscriptions/${id}`)
    expect(shown).toMatchObject({ id, status: 'expired', status_label: 'Expirado', cancellation: null })
    const events = await expiredEvents(s)
    expect(events).toHaveLength(1)
    expect(events[0]?.data.object).toMatchObject({ id, status: 'expired', status_label: 'Expirado' })
    expect(
      (await call(s, 'GET', '/subscriptions?filter[status]=expired')).data.map((x: { id: number }) => x.id),
    ).toEqual([id])
    expect((await call(s, 'GET', '/subscriptions?filter[status]=pago')).data).toHaveLength(0)

    // Nothing more on later runs and reads.
    expect((await advance(s, 3)).jobs.subscription_end).toEqual({ expired: 0 })
    await call(s, 'GET', `/subscriptions/${id}`)
    expect(await expiredEvents(s)).toHaveLength(1)

    // The device is free: a new contract protects it. What has ended cannot be canceled or changed.
    expect((await contractOn(s, serial)).statusCode).toBe(201)
    const cancel = await send(ctx, s, 'POST', `/subscriptions/${id}/cancellation`, {})
    expect(cancel.statusCode).toBe(422)
    expect(cancel.json().message).toContain('expired')
    expect((await send(ctx, s, 'PUT', `/subscriptions/${id}/card`, subscriptionCard)).statusCode).toBe(422)
  })

  it('a subscription canceled before its end never expires', async () => {
    const s = await newSeller(ctx, 'own')
    const id = await paidSubscription(s, newSerial())
    await call(s, 'POST', `/subscriptions/${id}/cancellation`, { reason: 'changed phones' })
    const moved = await advance(s, 400)
    expect(moved.jobs.subscription_end).toEqual({ expired: 0 })
    expect(await call(s, 'GET', `/subscriptions/${id}`)).toMatchObject({
      status: 'canceled',
      status_label: 'Cancelado',
    })
    expect(await expiredEvents(s)).toHaveLength(0)
  })
})
