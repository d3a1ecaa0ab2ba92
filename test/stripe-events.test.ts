import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Clock } from '../src/shared/time.js'
import { StripeServer } from './helpers/stripe-server.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, contractSubscription, galaxyOf, type Seller, seller } from './helpers/world.js'

// Stripe's own events at POST /stripe/webhooks, signed by the local Stripe-compatible server with the
// `stripe` library: a PIX code paid by an event, repeats and late outcomes, forged and stale signatures,
// and a card charge whose answer was lost settled by the event before the worker would poll.

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
beforeAll(async () => {
  modelId = await galaxyOf(ctx)
  own = await seller(ctx, 'own')
})

const deliver = (event: { payload: string; headers: Record<string, string> }) =>
  ctx.app.inject({ method: 'POST', url: '/stripe/webhooks', payload: event.payload, headers: event.headers })

async function pixOfFirstInstallment() {
  const sub = await contractSubscription(ctx, own, modelId)
  const [first] = await answer(ctx, own, 'GET', `/subscriptions/${sub.id}/installments`)
  const code = await answer(
    ctx,
    own,
    'POST',
    `/subscriptions/${sub.id}/installments/${first.id}/pix`,
    undefined,
    201,
  )
  const intent = server.paymentIntents.at(-1)
  if (!intent) throw new Error('no PaymentIntent made')
  return { sub, first, code, intent }
}

describe('POST /stripe/webhooks', () => {
  it('makes the PIX code at Stripe as its API document has it, and a succeeded event pays the installment once', async () => {
    const { sub, code, intent } = await pixOfFirstInstallment()
    expect(intent.params).toMatchObject({
      'allowed_payment_method_types[0]': 'pix',
      'payment_method_data[type]': 'pix',
      'payment_method_options[pix][expires_after_seconds]': '3600',
      confirm: 'true',
      currency: 'brl',
    })
    expect(code.qr_code).toContain(intent.id)
    const paid = server.signedEvent(
      'payment_intent.succeeded',
      server.intentObject(server.payCode(intent.id)),
    )
    const first = await deliver(paid)
    expect(first.statusCode, first.body).toBe(200)
    expect(first.json()).toEqual({ received: true, result: 'applied' })
    // The same event again, and a late failure of the same PaymentIntent: nothing changes.
    expect((await deliver(paid)).json()).toEqual({ received: true, result: 'duplicate' })
    const late = server.signedEvent('payment_intent.payment_failed', server.intentObject(intent))
    expect((await deliver(late)).json()).toEqual({ received: true, result: 'applied' })
    const [installment] = await answer(ctx, own, 'GET', `/subscriptions/${sub.id}/installments`)
    expect(installment).toMatchObject({ status: 'paid', paid_with: 'pix' })
    expect((await answer(ctx, own, 'GET', `/subscriptions/${sub.id}`)).status).toBe('pago')
    const events = await answer(ctx, own, 'GET', '/events?type=installment.paid')
    expect(
      events.data.filter((e: { data: { object: { id: number } } }) => e.data.object.id === installment.id),
    ).toHaveLength(1)
  })

  it('a failure before the success: the code fails, a new one may be asked, and the success still pays', async () => {
    const { sub, first, intent } = await pixOfFirstInstallment()
    const failed = server.signedEvent('payment_intent.payment_failed', server.intentObject(intent))
    expect((await deliver(failed)).json().result).toBe('applied')
    const fresh = await answer(
      ctx,
      own,
      'POST',
      `/subscriptions/${sub.id}/installments/${first.id}/pix`,
      undefined,
      201,
    )
    expect(fresh.status).toBe('pending')
    const succeeded = server.signedEvent(
      'payment_intent.succeeded',
      server.intentObject(server.payCode(intent.id)),
    )
    expect((await deliver(succeeded)).json().result).toBe('applied')
    const [installment] = await answer(ctx, own, 'GET', `/subscriptions/${sub.id}/installments`)
    expect(installment).toMatchObject({ status: 'paid', paid_with: 'pix' })
  })

  it('refuses a forged or stale signature with 400 and applies nothing', async () => {
    const { sub, intent } = await pixOfFirstInstallment()
    const object = server.intentObject(server.payCode(intent.id))
    const forged = server.signedEvent('payment_intent.succeeded', object, {
      secret: 'whsec_notStripes0123456789',
    })
    const stale = server.signedEvent('payment_intent.succeeded', object, {
      timestamp: Math.floor(Date.now() / 1000) - 301,
    })
    const unsigned = { ...forged, headers: { 'content-type': 'application/json' } }
    for (const event of [forged, stale, unsigned]) {
      const refused = await deliver(event)
      expect(refused.statusCode).toBe(400)
      expect(refused.json().message).toBe(
        'The Stripe signature of this event is missing, invalid or too old.',
      )
    }
    // The body changed after signing: refused too.
    const tampered = server.signedEvent('payment_intent.succeeded', object)
    expect(
      (await deliver({ ...tampered, payload: tampered.payload.replace('succeeded', 'succeeded ') }))
        .statusCode,
    ).toBe(400)
    const [installment] = await answer(ctx, own, 'GET', `/subscriptions/${sub.id}/installments`)
    expect(installment).toMatchObject({ status: 'pending', paid_with: null })
    // The genuine delivery of that same event id is then applied.
    expect(
      (
        await deliver({
          ...stale,
          ...server.signedEvent('payment_intent.succeeded', object, { id: stale.id }),
        })
      ).json().result,
    ).toBe('applied')
  })

  it('settles a card charge whose answer was lost, from Stripe’s event, before the worker would poll', async () => {
    const sub = await contractSubscription(ctx, own, modelId)
    // Lost, and so is the library's one retry of it: the partner hears 503.
    server.loseNext('/v1/payment_intents', 2)
    const lost = await ctx.app.inject({
      method: 'POST',
      url: `/subscriptions/${sub.id}/payment`,
      headers: { authorization: `Bearer ${own.token}` },
      payload: { creditCard: { number: '4111111111111111', expiry: '1230', cvv: '123' } },
    })
    expect(lost.statusCode, lost.body).toBe(503)
    expect((await answer(ctx, own, 'GET', `/subscriptions/${sub.id}`)).status).toBe('pending')
    const intent = server.paymentIntents.at(-1)
    if (!intent) throw new Error('no PaymentIntent made')
    expect(intent.status).toBe('succeeded')
    const event = server.signedEvent('payment_intent.succeeded', server.intentObject(intent))
    expect((await deliver(event)).json()).toEqual({ received: true, result: 'applied' })
    expect((await answer(ctx, own, 'GET', `/subscriptions/${sub.id}`)).status).toBe('pago')
    const [first] = await answer(ctx, own, 'GET', `/subscriptions/${sub.id}/installments`)
    expect(first).toMatchObject({ status: 'paid', paid_with: 'card' })
    expect(server.charges.filter((pi) => pi.id === intent.id)).toHaveLength(1)
    expect((await deliver(event)).json().result).toBe('duplicate')
  })
})
