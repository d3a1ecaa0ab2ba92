import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Clock, formatTimestamp } from '../src/shared/time.js'
import { ADDRESS, MARIA, uniqueImei } from './helpers/bodies.js'
import { StripeServer } from './helpers/stripe-server.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, contractSubscription, galaxyOf, type Seller, seller } from './helpers/world.js'

// PIX and boleto through the Stripe gateway, at the local Stripe-compatible server: a boleto made as
// Stripe's API has it and paid two days later (sandbox clock) by Stripe's signed event; a PIX code
// that expired, a new one in its place, and Stripe's late word about the old one.

const START = new Date('2026-11-21T15:00:00.000Z')
const ZONE = 'America/Sao_Paulo'
let now = START
const clock: Clock = { now: () => now }
const server = new StripeServer()
server.now = () => now

beforeAll(() => server.start())
afterAll(() => server.stop())
const ctx = useTestApp(() => ({
  clock,
  env: { ...server.env(60), STRIPE_WEBHOOK_SECRET: server.webhookSecret },
}))

let modelId = 0
beforeAll(async () => {
  modelId = await galaxyOf(ctx)
})

const ownSeller = (): Promise<Seller> =>
  seller(ctx, { partner: 'own', customer: { ...MARIA, address: ADDRESS } })

const deliver = async (event: { payload: string; headers: Record<string, string> }) => {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/stripe/webhooks',
    payload: event.payload,
    headers: event.headers,
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json().result
}

const lastIntent = () => {
  const intent = server.paymentIntents.at(-1)
  if (!intent) throw new Error('no PaymentIntent made')
  return intent
}

/** What Stripe's answer for a PaymentIntent showed (its `next_action`). */
const nextActionOf = (intentId: string) => server.displayed(intentId)

describe('boleto through Stripe', () => {
  it('is made with the payer Stripe requires, answers Stripe’s number and PDF, and is paid two days later by Stripe’s event', async () => {
    now = START
    const s = await ownSeller()
    const plan = await answer(
      ctx,
      s,
      'POST',
      '/annual-plans',
      { model_id: modelId, customer_id: s.customerId, plan_id: s.annualPlanId, imei: uniqueImei() },
      201,
    )
    const boleto = await answer(ctx, s, 'POST', `/annual-plans/${plan.id}/boleto`, undefined, 201)
    const intent = lastIntent()
    expect(intent.params).toMatchObject({
      amount: String(Math.round(Number(plan.premium) * 100)),
      currency: 'brl',
      confirm: 'true',
      'allowed_payment_method_types[0]': 'boleto',
      'payment_method_data[type]': 'boleto',
      'payment_method_data[boleto][tax_id]': '52998224725',
      'payment_method_data[billing_details][name]': 'Maria da Silva',
      'payment_method_data[billing_details][email]': 'maria@example.com',
      'payment_method_data[billing_details][address][line1]': 'Avenida Paulista, 1000',
      'payment_method_data[billing_details][address][city]': 'São Paulo',
      'payment_method_data[billing_details][address][state]': 'SP',
      'payment_method_data[billing_details][address][postal_code]': '01310100',
      'payment_method_data[billing_details][address][country]': 'BR',
      'payment_method_options[boleto][expires_after_days]': '3',
      'metadata[amparo_partner_id]': String(s.partnerId),
      'metadata[amparo_reference]': `annual-plan-${plan.id}`,
    })
    const shown = nextActionOf(intent.id).boleto_display_details
    // Stripe's boleto lasts until 23:59:59 of its third day; Amparo says the instant it ends.
    expect(boleto).toEqual({
      id: expect.any(Number),
      status: 'pending',
      amount: plan.premium,
      number: shown.number,
      pdf_url: shown.pdf,
      expires_at: formatTimestamp(new Date((shown.expires_at + 1) * 1000), ZONE),
    })
    expect(boleto.expires_at).toBe('2026-11-25 00:00:00')
    // Asked again while payable: the same boleto, no second PaymentIntent.
    expect(await answer(ctx, s, 'POST', `/annual-plans/${plan.id}/boleto`)).toEqual(boleto)
    expect(lastIntent().id).toBe(intent.id)

    await answer(ctx, s, 'POST', '/sandbox/clock/advance', { days: 2 })
    const paid = server.signedEvent(
      'payment_intent.succeeded',
      server.intentObject(server.payCode(intent.id)),
    )
    expect(await deliver(paid)).toBe('applied')
    expect(await deliver(paid)).toBe('duplicate')
    expect(await answer(ctx, s, 'GET', `/annual-plans/${plan.id}`)).toMatchObject({
      status: 'paid',
      paid_with: 'boleto',
      paid_at: '2026-11-23 12:00:00',
      starts_at: '2026-11-24 00:00:00',
    })
    const events = await answer(ctx, s, 'GET', '/events?type=annual_plan.paid')
    expect(
      events.data.map((e: { data: { object: { id: number; paid_with: string } } }) => [
        e.data.object.id,
        e.data.object.paid_with,
      ]),
    ).toEqual([[plan.id, 'boleto']])
  })
})

describe('an expired PIX code through Stripe', () => {
  it('a new one replaces it (a new PaymentIntent, a new key); Stripe’s late failure of the old changes nothing; the new one pays', async () => {
    now = START
    const s = await ownSeller()
    const sub = await contractSubscription(ctx, s, modelId)
    const [first] = await answer(ctx, s, 'GET', `/subscriptions/${sub.id}/installments`)
    const url = `/subscriptions/${sub.id}/installments/${first.id}/pix`
    const old = await answer(ctx, s, 'POST', url, undefined, 201)
    const oldIntent = lastIntent()
    const shown = nextActionOf(oldIntent.id).pix_display_qr_code
    expect(old).toMatchObject({
      status: 'pending',
      qr_code: shown.data,
      expires_at: formatTimestamp(new Date(shown.expires_at * 1000), ZONE),
    })

    now = new Date(START.getTime() + 3_600_000)
    s.token = await s.login()
    const fresh = await answer(ctx, s, 'POST', url, undefined, 201)
    const freshIntent = lastIntent()
    expect(freshIntent.id).not.toBe(oldIntent.id)
    expect(fresh).toMatchObject({
      status: 'pending',
      qr_code: nextActionOf(freshIntent.id).pix_display_qr_code.data,
    })
    const keys = server.requests
      .filter((r) => r.path === '/v1/payment_intents' && r.params['payment_method_data[type]'] === 'pix')
      .slice(-2)
      .map((r) => r.idempotencyKey)
    expect(new Set(keys).size).toBe(2)

    // Stripe fails the expired PaymentIntent: the old code stays expired, the new one pending.
    expect(
      await deliver(server.signedEvent('payment_intent.payment_failed', server.intentObject(oldIntent))),
    ).toBe('applied')
    expect(await answer(ctx, s, 'POST', url)).toEqual(fresh)
    const paid = server.signedEvent(
      'payment_intent.succeeded',
      server.intentObject(server.payCode(freshIntent.id)),
    )
    expect(await deliver(paid)).toBe('applied')
    const [installment] = await answer(ctx, s, 'GET', `/subscriptions/${sub.id}/installments`)
    expect(installment).toMatchObject({ status: 'paid', paid_with: 'pix', paid_at: '2026-11-21 13:00:00' })
  })
})
