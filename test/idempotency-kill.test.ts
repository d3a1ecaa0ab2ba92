import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gatewayOf } from '../src/modules/payments/gateway-factory.js'
import type { PaymentGateway } from '../src/modules/payments/payment-gateway.js'
import { runReconciliation } from '../src/worker/reconcile.job.js'
import { annualCard, subscriptionCard, uniqueImei } from './helpers/bodies.js'
import { type Served, serve } from './helpers/serve.js'
import { StripeServer } from './helpers/stripe-server.js'
import { buildCheckedApp, useTestApp } from './helpers/test-app.js'
import { bearer, galaxyOf, type Seller, seller, subscribe } from './helpers/world.js'

// A key answers its first outcome: an `amparo serve` killed (-9) after Stripe charged a card and
// before the charge was committed leaves an attempt nobody recorded. Its retry with the same
// Idempotency-Key answers that charge (200, paid), at once or after the worker recorded it; a
// payment under another key meanwhile waits (409, the claim's real time left) and is never
// answered for a card that was not charged. A real kill, on either database.

const CLAIM_SECONDS = 60
const stripe = new StripeServer()
beforeAll(() => stripe.start())
afterAll(() => stripe.stop())
const ctx = useTestApp(() => ({ onDisk: true, env: stripe.env(CLAIM_SECONDS) }))
let s: Seller
let modelId: number

beforeAll(async () => {
  modelId = await galaxyOf(ctx)
  s = await seller(ctx, 'own')
}, 120_000)

const post = (url: string, key: string, payload: object) =>
  ctx.app.inject({ method: 'POST', url, headers: { ...bearer(s.token), 'idempotency-key': key }, payload })

/** POSTs `payload` with `key` to a served process and kills it once Stripe has processed the charge. */
async function killedAfterCharge(url: string, key: string, payload: object) {
  const served: Served = await serve(ctx.env)
  const held = stripe.holdNext('/v1/payment_intents')
  try {
    fetch(`${served.base}${url}`, {
      method: 'POST',
      headers: { ...bearer(s.token), 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(payload),
    }).catch(() => undefined)
    await held.processed
  } finally {
    await served.kill()
    held.release()
  }
}

const chargesOf = (reference: string) =>
  stripe.paymentIntents.filter(
    (pi) => pi.status === 'succeeded' && pi.params['metadata[amparo_reference]'] === reference,
  )

describe('a payment whose process died after Stripe charged', () => {
  it('its key answers 200 at once; another key waits, and is never answered for its card', async () => {
    const id = await subscribe(ctx, s, modelId)
    const url = `/subscriptions/${id}/payment`
    const key = `pay-${id}`
    await killedAfterCharge(url, key, subscriptionCard)
    const reference = `subscription-${id}-installment-1`
    expect(chargesOf(reference)).toHaveLength(1)

    // Another key with another card, while the dead call's claim holds installment 1: the real wait.
    const other = { creditCard: { ...subscriptionCard.creditCard, number: '5555555555554444' } }
    const waiting = await post(url, `other-${id}`, other)
    expect(waiting.statusCode, waiting.body).toBe(409)
    expect(waiting.json().code).toBe('payment_in_progress')
    const retryAfter = Number(waiting.headers['retry-after'])
    expect(retryAfter).toBeGreaterThan(2)
    expect(retryAfter).toBeLessThanOrEqual(CLAIM_SECONDS)

    // The key's retry reconciles the charge now, without waiting for the claim or the worker.
    const retry = await post(url, key, subscriptionCard)
    expect(retry.statusCode, retry.body).toBe(200)
    expect(retry.json()).toMatchObject({ id, status: 'pago', card: { last4: '1111' } })
    expect(chargesOf(reference)).toHaveLength(1)
    const again = await post(url, key, subscriptionCard)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.body).toBe(retry.body)

    // The other key is told the installment is paid, not that its card paid it.
    const refused = await post(url, `other-${id}`, other)
    expect(refused.statusCode, refused.body).toBe(422)
    expect(refused.json().code).toBe('invalid_state')
    expect(
      stripe.paymentIntents.filter((pi) => pi.params['metadata[amparo_reference]'] === reference),
    ).toHaveLength(1)
  }, 300_000)

  it('another key once the claim ran out: the lost charge is recorded first, its card never answered for', async () => {
    const id = await subscribe(ctx, s, modelId)
    const url = `/subscriptions/${id}/payment`
    const key = `pay-${id}`
    await killedAfterCharge(url, key, subscriptionCard)
    const reference = `subscription-${id}-installment-1`

    // Past the dead call's claim, no worker yet: a payment with another card and another key.
    const later = new Date(Date.now() + (CLAIM_SECONDS + 1) * 1000)
    const app = await buildCheckedApp({
      config: ctx.config,
      db: ctx.db,
      clock: { now: () => later },
      logger: false,
    })
    try {
      const other = { creditCard: { ...subscriptionCard.creditCard, number: '5555555555554444' } }
      const refused = await app.inject({
        method: 'POST',
        url,
        headers: { ...bearer(s.token), 'idempotency-key': `other-${id}` },
        payload: other,
      })
      expect(refused.statusCode, refused.body).toBe(422)
      expect(refused.json().code).toBe('invalid_state')
    } finally {
      await app.close()
    }
    const shown = await ctx.app.inject({ url: `/subscriptions/${id}`, headers: bearer(s.token) })
    expect(shown.json()).toMatchObject({ status: 'pago', card: { last4: '1111' } })
    expect(
      stripe.paymentIntents.filter((pi) => pi.params['metadata[amparo_reference]'] === reference),
    ).toHaveLength(1)

    // The lost call's own key still answers its charge.
    const retry = await post(url, key, subscriptionCard)
    expect(retry.statusCode, retry.body).toBe(200)
    expect(retry.json()).toMatchObject({ id, status: 'pago' })
  }, 300_000)

  it('an annual plan recorded by the worker meanwhile: its key answers 200 with the paid plan, not 422', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/annual-plans',
      headers: bearer(s.token),
      payload: { model_id: modelId, customer_id: s.customerId, plan_id: s.annualPlanId, imei: uniqueImei() },
    })
    expect(created.statusCode, created.body).toBe(201)
    const { id } = created.json()
    const url = `/annual-plans/${id}/payment`
    const key = `annual-${id}`
    await killedAfterCharge(url, key, annualCard)
    expect(chargesOf(`annual-plan-${id}`)).toHaveLength(1)

    // The worker, once the call is surely over, records it; the key's retry then answers it.
    const gateway = (await gatewayOf(ctx.config, ctx.db)) as PaymentGateway
    const later = new Date(Date.now() + 40_000)
    const run = await runReconciliation({
      db: ctx.db,
      clock: { now: () => later },
      timeZone: ctx.config.timeZone,
      gateway,
    })
    expect(run.recorded).toBeGreaterThanOrEqual(1)
    const retry = await post(url, key, annualCard)
    expect(retry.statusCode, retry.body).toBe(200)
    expect(retry.json().id).toBe(id)
    expect(retry.json().status).not.toBe('awaiting_payment')
    expect(chargesOf(`annual-plan-${id}`)).toHaveLength(1)
  }, 300_000)

  it('an annual plan retried with its key at once: 200, charged once', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/annual-plans',
      headers: bearer(s.token),
      payload: { model_id: modelId, customer_id: s.customerId, plan_id: s.annualPlanId, imei: uniqueImei() },
    })
    expect(created.statusCode, created.body).toBe(201)
    const { id } = created.json()
    const url = `/annual-plans/${id}/payment`
    await killedAfterCharge(url, `annual-${id}`, annualCard)
    const retry = await post(url, `annual-${id}`, annualCard)
    expect(retry.statusCode, retry.body).toBe(200)
    expect(retry.json().status).not.toBe('awaiting_payment')
    expect(chargesOf(`annual-plan-${id}`)).toHaveLength(1)
  }, 300_000)
})
