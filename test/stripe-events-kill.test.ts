import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { subscriptionCard } from './helpers/bodies.js'
import { type Served, serve } from './helpers/serve.js'
import { StripeServer } from './helpers/stripe-server.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, galaxyOf, type Seller, seller, subscribe } from './helpers/world.js'

// An `amparo serve` killed (-9) between receiving a Stripe event and answering it: Stripe never
// hears 2xx, so it sends the same event again, to the restarted service, which applies it once:
// killed while applying it (asking Stripe about a lost card charge), or once its effect is
// committed and before Stripe read the answer. A real kill, on either database.

const stripe = new StripeServer()
beforeAll(() => stripe.start())
afterAll(() => stripe.stop())
const ctx = useTestApp(() => ({
  onDisk: true,
  env: { ...stripe.env(60), STRIPE_WEBHOOK_SECRET: stripe.webhookSecret },
}))
let s: Seller
let modelId: number

beforeAll(async () => {
  modelId = await galaxyOf(ctx)
  s = await seller(ctx, 'own')
}, 120_000)

type Signed = { id: string; payload: string; headers: Record<string, string> }

/** Stripe's delivery of `event` to a served process (its answer, or undefined when it never came). */
const deliverTo = (served: Served, event: Signed) =>
  fetch(`${served.base}/stripe/webhooks`, {
    method: 'POST',
    headers: event.headers,
    body: event.payload,
  }).then(
    async (r) => ({ status: r.status, body: (await r.json()) as { result: string } }),
    () => undefined,
  )

/** Stripe's retry of an event: the same id and object, signed anew at its own time. */
const resent = (event: Signed, type: string, object: Record<string, unknown>) =>
  stripe.signedEvent(type, object, { id: event.id })

const installmentPaidEvents = async (subscriptionId: number) => {
  const { data } = await answer(ctx, s, 'GET', '/events?type=installment.paid&limit=100')
  return data.filter(
    (e: { data: { object: { subscription_id: number } } }) =>
      e.data.object.subscription_id === subscriptionId,
  )
}

const ledgerOf = (subscriptionId: number) =>
  ctx.db
    .selectFrom('payments')
    .select(['outcome', 'transaction_id'])
    .where('subscription_id', '=', subscriptionId)
    .execute()

describe('a Stripe event whose receiver is killed before answering', () => {
  it('killed while applying it (asking Stripe about a lost card charge): the resent event records the charge once', async () => {
    const id = await subscribe(ctx, s, modelId)
    // The card charge's answer is lost (and the library's one retry): the partner heard 503.
    stripe.loseNext('/v1/payment_intents', 2)
    const lost = await ctx.app.inject({
      method: 'POST',
      url: `/subscriptions/${id}/payment`,
      headers: { authorization: `Bearer ${s.token}` },
      payload: subscriptionCard,
    })
    expect(lost.statusCode, lost.body).toBe(503)
    const intent = stripe.paymentIntents.at(-1)
    if (intent?.status !== 'succeeded') throw new Error('no charge taken')
    const object = stripe.intentObject(intent)
    const event = stripe.signedEvent('payment_intent.succeeded', object)

    // The event arrives; applying it asks Stripe for the charge again, and the process dies meanwhile.
    const served = await serve(ctx.env)
    const held = stripe.holdNext('/v1/payment_intents')
    let first: Promise<unknown> = Promise.resolve()
    try {
      first = deliverTo(served, event)
      await held.processed
    } finally {
      await served.kill()
      held.release()
    }
    expect(await first).toBeUndefined()
    expect((await answer(ctx, s, 'GET', `/subscriptions/${id}`)).status).toBe('pending')

    const restarted = await serve(ctx.env)
    try {
      const again = await deliverTo(restarted, resent(event, 'payment_intent.succeeded', object))
      expect(again).toEqual({ status: 200, body: { received: true, result: 'applied' } })
      const repeat = await deliverTo(restarted, resent(event, 'payment_intent.succeeded', object))
      expect(repeat?.body.result).toBe('duplicate')
    } finally {
      await restarted.kill()
    }
    expect((await answer(ctx, s, 'GET', `/subscriptions/${id}`)).status).toBe('pago')
    const [installment] = await answer(ctx, s, 'GET', `/subscriptions/${id}/installments`)
    expect(installment).toMatchObject({ status: 'paid', paid_with: 'card' })
    expect(await installmentPaidEvents(id)).toHaveLength(1)
    expect((await ledgerOf(id)).filter((p) => p.outcome === 'approved')).toEqual([
      { outcome: 'approved', transaction_id: intent.id },
    ])
    expect(
      stripe.charges.filter(
        (pi) => pi.params['metadata[amparo_reference]'] === `subscription-${id}-installment-1`,
      ),
    ).toHaveLength(1)
  }, 300_000)

  it('killed once its effect is committed, before Stripe read the answer: the resent PIX event is a duplicate', async () => {
    const id = await subscribe(ctx, s, modelId)
    const [first] = await answer(ctx, s, 'GET', `/subscriptions/${id}/installments`)
    await answer(ctx, s, 'POST', `/subscriptions/${id}/installments/${first.id}/pix`, undefined, 201)
    const intent = stripe.paymentIntents.at(-1)
    if (!intent) throw new Error('no PaymentIntent made')
    const object = stripe.intentObject(stripe.payCode(intent.id))
    const event = stripe.signedEvent('payment_intent.succeeded', object)

    const served = await serve(ctx.env)
    try {
      // Stripe's side of the connection never reads the answer: the process dies first.
      void deliverTo(served, event)
      for (const deadline = Date.now() + 120_000; ; await sleep(10)) {
        const kept = await ctx.db
          .selectFrom('stripe_events')
          .select('id')
          .where('id', '=', event.id)
          .executeTakeFirst()
        if (kept) break
        if (Date.now() > deadline) throw new Error('the event was never applied')
      }
    } finally {
      await served.kill()
    }

    const restarted = await serve(ctx.env)
    try {
      const again = await deliverTo(restarted, resent(event, 'payment_intent.succeeded', object))
      expect(again).toEqual({ status: 200, body: { received: true, result: 'duplicate' } })
    } finally {
      await restarted.kill()
    }
    const [installment] = await answer(ctx, s, 'GET', `/subscriptions/${id}/installments`)
    expect(installment).toMatchObject({ status: 'paid', paid_with: 'pix' })
    expect(await installmentPaidEvents(id)).toHaveLength(1)
    expect((await ledgerOf(id)).filter((p) => p.outcome === 'approved')).toEqual([
      { outcome: 'approved', transaction_id: intent.id },
    ])
  }, 300_000)
})
