import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Clock } from '../src/shared/time.js'
import { runRefunds } from '../src/worker/refunds.job.js'
import { uniqueImei, annualCard as VISA } from './helpers/bodies.js'
import { type ConsoleHeaders, type ConsoleTestContext, createConsoleApp } from './helpers/console.js'
import { StripeServer } from './helpers/stripe-server.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, contractSubscription, galaxyOf, type Seller, seller } from './helpers/world.js'

// Stripe's dispute and refund events at POST /stripe/webhooks, signed by the local Stripe-compatible
// server: a chargeback opened and closed (the partner's `payment.disputed`, the console's Disputas),
// repeats and a closed before its created; a refund Stripe fails back in the console's retry list.

const START = new Date('2026-11-21T15:00:00.000Z')
const clock: Clock = { now: () => START }
const server = new StripeServer()

beforeAll(() => server.start())
afterAll(() => server.stop())
const ctx = useTestApp(() => ({
  clock,
  env: { ...server.env(60), STRIPE_WEBHOOK_SECRET: server.webhookSecret },
}))

let modelId = 0
let own: Seller
let consoleCtx: ConsoleTestContext
let viewer: ConsoleHeaders
beforeAll(async () => {
  modelId = await galaxyOf(ctx)
  own = await seller(ctx, 'own')
  consoleCtx = await createConsoleApp({ over: () => ctx })
  await consoleCtx.console.ready()
  viewer = await consoleCtx.loginAs('viewer')
})
afterAll(async () => {
  await consoleCtx?.close()
})

const deliver = (event: { payload: string; headers: Record<string, string> }) =>
  ctx.app.inject({ method: 'POST', url: '/stripe/webhooks', payload: event.payload, headers: event.headers })
const resultOf = async (event: { payload: string; headers: Record<string, string> }) => {
  const response = await deliver(event)
  expect(response.statusCode, response.body).toBe(200)
  return response.json().result
}

/** A subscription whose first installment was paid by card at Stripe; its PaymentIntent. */
async function paidSubscription() {
  const sub = await contractSubscription(ctx, own, modelId)
  await answer(ctx, own, 'POST', `/subscriptions/${sub.id}/payment`, {
    creditCard: { number: '4111111111111111', expiry: '1230', cvv: '123' },
  })
  const intent = server.paymentIntents.at(-1)
  if (!intent) throw new Error('no PaymentIntent made')
  return { sub: await answer(ctx, own, 'GET', `/subscriptions/${sub.id}`), intent }
}

let disputes = 0
const disputeObject = (paymentIntent: string, status: string, dueBy: number, id?: string) => ({
  id: id ?? `dp_test${++disputes}`,
  object: 'dispute',
  amount: 5400,
  currency: 'brl',
  charge: `ch_for_${paymentIntent}`,
  payment_intent: paymentIntent,
  reason: 'fraudulent',
  status,
  evidence_details: { due_by: dueBy },
})

const disputedEvents = async (disputeId: string) => {
  const { data } = await answer(ctx, own, 'GET', '/events?type=payment.disputed&limit=100')
  return data.filter(
    (e: { data: { object: { gateway_dispute_id: string } } }) =>
      e.data.object.gateway_dispute_id === disputeId,
  )
}

const consoleDisputes = async () => {
  const response = await consoleCtx.console.inject({
    method: 'GET',
    url: '/api/disputes?per_page=100',
    headers: viewer,
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json().data as { gateway_dispute_id: string; [key: string]: unknown }[]
}

describe('Stripe disputes', () => {
  it('a dispute opened then closed: disputed, then lost, told to the partner and listed in the console by deadline', async () => {
    const { sub, intent } = await paidSubscription()
    // 2026-12-01 23:59:59 UTC: 20:59:59 in São Paulo.
    const dueBy = Date.UTC(2026, 11, 1, 23, 59, 59) / 1000
    const opened = disputeObject(intent.id, 'needs_response', dueBy)
    expect(await resultOf(server.signedEvent('charge.dispute.created', opened))).toBe('applied')
    const [first] = await disputedEvents(opened.id)
    expect(first.data.object).toMatchObject({
      status: 'disputed',
      status_label: 'Em disputa',
      amount: 5400,
      reason: 'fraudulent',
      reason_label: 'Fraude',
      evidence_due_by: '2026-12-01 20:59:59',
      contract: { kind: 'subscription', id: sub.id, policy_number: sub.policy_number },
    })
    expect(sub.policy_number).toMatch(/^AMP-/)
    // An earlier deadline of another charge sorts first.
    const other = await paidSubscription()
    const sooner = disputeObject(other.intent.id, 'needs_response', dueBy - 86_400)
    expect(await resultOf(server.signedEvent('charge.dispute.created', sooner))).toBe('applied')
    const listed = (await consoleDisputes()).filter((d) =>
      [opened.id, sooner.id].includes(d.gateway_dispute_id),
    )
    expect(listed.map((d) => d.gateway_dispute_id)).toEqual([sooner.id, opened.id])
    expect(listed[1]).toMatchObject({
      partner: { id: own.partnerId },
      contract: { kind: 'subscription', id: sub.id, policy_number: sub.policy_number },
      amount_cents: 5400,
      reason: 'fraudulent',
      status: 'disputed',
      evidence_due_by: '2026-12-01T23:59:59.000Z',
    })

    const closed = server.signedEvent('charge.dispute.closed', { ...opened, status: 'lost' })
    expect(await resultOf(closed)).toBe('applied')
    expect(await resultOf(closed)).toBe('duplicate')
    const events = await disputedEvents(opened.id)
    expect(events.map((e: { data: { object: { status: string } } }) => e.data.object.status)).toEqual([
      'disputed',
      'lost',
    ])
    const lost = (await consoleDisputes()).find((d) => d.gateway_dispute_id === opened.id)
    expect(lost?.status).toBe('lost')
  })

  it('the same created event twice: one dispute, one event', async () => {
    const { intent } = await paidSubscription()
    const opened = disputeObject(intent.id, 'needs_response', Date.UTC(2026, 11, 5) / 1000)
    const event = server.signedEvent('charge.dispute.created', opened)
    expect(await resultOf(event)).toBe('applied')
    expect(await resultOf(event)).toBe('duplicate')
    expect(await disputedEvents(opened.id)).toHaveLength(1)
    expect((await consoleDisputes()).filter((d) => d.gateway_dispute_id === opened.id)).toHaveLength(1)
  })

  it('closed before created: won stays won, and the late created changes nothing', async () => {
    const { intent } = await paidSubscription()
    const opened = disputeObject(intent.id, 'needs_response', Date.UTC(2026, 11, 6) / 1000)
    expect(await resultOf(server.signedEvent('charge.dispute.closed', { ...opened, status: 'won' }))).toBe(
      'applied',
    )
    expect(await resultOf(server.signedEvent('charge.dispute.created', opened))).toBe('applied')
    const events = await disputedEvents(opened.id)
    expect(events.map((e: { data: { object: { status: string } } }) => e.data.object.status)).toEqual(['won'])
    expect((await consoleDisputes()).find((d) => d.gateway_dispute_id === opened.id)?.status).toBe('won')
  })

  it('a dispute about no charge of Amparo’s is kept as seen and changes nothing', async () => {
    const stray = disputeObject('pi_notAmparos', 'needs_response', Date.UTC(2026, 11, 6) / 1000)
    const event = server.signedEvent('charge.dispute.created', stray)
    expect(await resultOf(event)).toBe('ignored')
    expect(await resultOf(event)).toBe('duplicate')
    expect((await consoleDisputes()).filter((d) => d.gateway_dispute_id === stray.id)).toEqual([])
  })
})

describe('a refund Stripe fails', () => {
  it('goes back to the console’s retry list, and the retry asks Stripe for a new refund', async () => {
    const plan = await answer(
      ctx,
      own,
      'POST',
      '/annual-plans',
      { model_id: modelId, customer_id: own.customerId, imei: uniqueImei() },
      201,
    )
    await answer(ctx, own, 'POST', `/annual-plans/${plan.id}/payment`, VISA)
    const { protocol } = await answer(ctx, own, 'PUT', `/annual-plans/${plan.id}/cancellation`)
    await answer(ctx, own, 'POST', `/annual-plans/${plan.id}/cancellation/${protocol}`)
    const gateway = ctx.app.gateway
    if (!gateway) throw new Error('no own gateway')
    const run = (at: Clock = clock) =>
      runRefunds({ db: ctx.db, gateway, clock: at, timeZone: ctx.config.timeZone, claimSeconds: 60 })
    expect(await run()).toMatchObject({ refunded: 1 })
    const refund = server.refunds.at(-1)
    if (!refund) throw new Error('no refund made')
    const failedList = async () => {
      const response = await consoleCtx.console.inject({
        method: 'GET',
        url: '/api/refunds?status=failed&per_page=100',
        headers: viewer,
      })
      expect(response.statusCode, response.body).toBe(200)
      return (response.json().data as { annual_plan_id: number; id: number }[]).filter(
        (r) => r.annual_plan_id === plan.id,
      )
    }
    expect(await failedList()).toEqual([])
    // A refund update that is not a failure changes nothing.
    const pending = { ...refund, object: 'refund', status: 'pending' }
    expect(await resultOf(server.signedEvent('charge.refund.updated', pending))).toBe('ignored')

    const failed = server.signedEvent('refund.failed', server.failRefund(refund.id))
    expect(await resultOf(failed)).toBe('applied')
    expect(await resultOf(failed)).toBe('duplicate')
    // Stripe also sends charge.refund.updated for the same failure: nothing more happens.
    const again = server.signedEvent('charge.refund.updated', {
      ...refund,
      object: 'refund',
      status: 'failed',
    })
    expect(await resultOf(again)).toBe('ignored')
    const [listed] = await failedList()
    expect(listed).toMatchObject({ status: 'failed', last_error: 'refund_failed_at_gateway' })
    const status = await answer(ctx, own, 'GET', `/annual-plans/${plan.id}`)
    expect(status.cancellation.refund_status).toBe('failed')

    const admin = await consoleCtx.loginAs('admin')
    const retried = await consoleCtx.console.inject({
      method: 'POST',
      url: `/api/refunds/${listed?.id}/retry`,
      headers: admin,
    })
    expect(retried.statusCode, retried.body).toBe(200)
    // The console's retry makes it due at the console's (real) time.
    const dueAt = new Date(retried.json().next_attempt_at)
    expect(await run({ now: () => dueAt })).toMatchObject({ refunded: 1 })
    const second = server.refunds.at(-1)
    expect(second?.id).not.toBe(refund.id)
    expect((await answer(ctx, own, 'GET', `/annual-plans/${plan.id}`)).cancellation.refund_status).toBe(
      'succeeded',
    )
  })
})
