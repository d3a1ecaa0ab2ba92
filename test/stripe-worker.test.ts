import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDb, type Db } from '../src/db/database.js'
import { gatewayOf, loadKeyNamespace } from '../src/modules/payments/gateway-factory.js'
import type { PaymentGateway } from '../src/modules/payments/payment-gateway.js'
import type { Clock } from '../src/shared/time.js'
import { runRecurrence } from '../src/worker/recurrence.job.js'
import { runRefunds } from '../src/worker/refunds.job.js'
import { uniqueImei } from './helpers/bodies.js'
import { StripeServer } from './helpers/stripe-server.js'
import { useTestApp } from './helpers/test-app.js'
import {
  ANNUAL,
  bearer,
  createCustomer,
  partnerWithToken,
  seedCatalog,
  seedPlan,
  type TestPartner,
  TOTAL_12X,
} from './helpers/world.js'

// The worker against a local Stripe-compatible server, through the real `stripe` library: refunds
// paid with an idempotency key of their own, and the recurrence at a gateway's real speed.

const START = new Date('2026-11-21T15:00:00.000Z')
let now = START
const clock: Clock = { now: () => now }
const MINUTE = 60_000
const CLAIM_SECONDS = 60
const VISA = '4111111111111111'

const server = new StripeServer()
/** No retry inside the library: each 500 is one failed attempt of the worker. */
let gateway: PaymentGateway
let namespace = ''
let partner: TestPartner
let token: string
let modelId = 0
let annualPlanId = 0
let subscriptionPlanId = 0

// Registered first, so that its after hook runs last, once the app has closed.
beforeAll(() => server.start())
afterAll(() => server.stop())
const ctx = useTestApp(() => ({
  clock,
  onDisk: true,
  env: server.env(CLAIM_SECONDS),
}))
beforeAll(async () => {
  const { model } = await seedCatalog(ctx.db)
  modelId = model('Galaxy S25').id
  gateway = (await gatewayOf(ctx.config, ctx.db, {
    maxNetworkRetries: 0,
    timeoutMs: 2_000,
  })) as PaymentGateway
  namespace = await loadKeyNamespace(ctx.db)
  ;({ partner, token } = await partnerWithToken(ctx.app, ctx.db, 'own'))
  await createCustomer(ctx.app, token)
  annualPlanId = (await seedPlan(ctx.db, partner.id, ANNUAL, START.toISOString())).id
  subscriptionPlanId = (await seedPlan(ctx.db, partner.id, TOTAL_12X, START.toISOString())).id
})

async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const response = await ctx.app.inject({ method, url, headers: bearer(token), ...(payload && { payload }) })
  const created = method === 'POST' && /^\/(annual-plans|subscriptions)$/.test(url)
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(created ? 201 : 200)
  return response.json()
}

/** An annual plan paid by card at Stripe and canceled at once: its whole premium is refunded. */
async function canceledPlan() {
  const { id } = await call('POST', '/annual-plans', {
    model_id: modelId,
    customer_document: '52998224725',
    plan_id: annualPlanId,
    imei: uniqueImei(),
  })
  const card = { card_number: VISA, card_holder: 'MARIA', card_expiry: '12/30', card_cvv: '123' }
  await call('POST', `/annual-plans/${id}/payment`, card)
  const { protocol } = await call('PUT', `/annual-plans/${id}/cancellation`)
  const plan = await call('POST', `/annual-plans/${id}/cancellation/${protocol}`)
  const charge = await ctx.db
    .selectFrom('payments')
    .select('transaction_id')
    .where('annual_plan_id', '=', id)
    .where('route', '=', 'card')
    .executeTakeFirstOrThrow()
  const refund = await ctx.db
    .selectFrom('annual_plan_refunds')
    .select('id')
    .where('annual_plan_id', '=', id)
    .executeTakeFirstOrThrow()
  return { id, plan, paymentIntent: charge.transaction_id, refundId: refund.id }
}

const refunds = () =>
  runRefunds({
    db: ctx.db,
    gateway,
    clock,
    timeZone: ctx.config.timeZone,
    claimSeconds: CLAIM_SECONDS,
  })

const refundLedger = (planId: number) =>
  ctx.db
    .selectFrom('payments')
    .select(['outcome', 'transaction_id'])
    .where('annual_plan_id', '=', planId)
    .where('route', '=', 'refund')
    .orderBy('id')
    .execute()

const refundCalls = (refundId: number) =>
  server.requests.filter(
    (r) => r.path === '/v1/refunds' && r.idempotencyKey === `${namespace}-refund-${refundId}`,
  )

describe('refunds through Stripe', () => {
  it('refunds the plan’s PaymentIntent after two 500s, with one idempotency key, once', async () => {
    now = START
    const { id, plan, paymentIntent, refundId } = await canceledPlan()
    expect(paymentIntent).toMatch(/^pi_/)
    server.failNext(500, '/v1/refunds', 2)
    expect(await refunds()).toMatchObject({ retried: 1 })
    now = new Date(now.getTime() + 5 * MINUTE)
    expect(await refunds()).toMatchObject({ retried: 1 })
    now = new Date(now.getTime() + 10 * MINUTE)
    expect(await refunds()).toMatchObject({ refunded: 1 })

    const calls = refundCalls(refundId)
    expect(calls).toHaveLength(3)
    expect(calls[2]?.params).toEqual({
      payment_intent: paymentIntent,
      amount: String(Math.round(plan.premium * 100)),
      reason: 'requested_by_customer',
      'metadata[amparo_partner_id]': String(partner.id),
      'metadata[amparo_reference]': `annual-plan-${id}-refund-${refundId}`,
    })
    expect(server.refunds.filter((r) => r.payment_intent === paymentIntent)).toHaveLength(1)
    const [refund] = server.refunds.filter((r) => r.payment_intent === paymentIntent)
    expect((await refundLedger(id)).map((r) => [r.outcome, r.transaction_id])).toEqual([
      ['failed', null],
      ['failed', null],
      ['refunded', refund?.id],
    ])
    const shown = await call('GET', `/annual-plans/${id}`)
    expect(shown.cancellation).toMatchObject({ refund_status: 'succeeded', refunded_at: expect.any(String) })
  })

  it('a lost answer is retried with the same key: Stripe replays the refund it made, none is added', async () => {
    now = START
    const { id, paymentIntent, refundId } = await canceledPlan()
    server.loseNext('/v1/refunds')
    // The library itself may resend on the dropped connection; if not, the worker's next attempt does.
    const first = await refunds()
    if (first.retried) {
      now = new Date(now.getTime() + 5 * MINUTE)
      expect(await refunds()).toMatchObject({ refunded: 1 })
    }
    const calls = refundCalls(refundId)
    expect(calls.map((r) => r.processed)).toEqual([true, false])
    expect(server.refunds.filter((r) => r.payment_intent === paymentIntent)).toHaveLength(1)
    expect((await refundLedger(id)).at(-1)?.outcome).toBe('refunded')
    expect((await call('GET', `/annual-plans/${id}`)).cancellation.refund_status).toBe('succeeded')
  })
})

describe('the recurrence at gateway speed', () => {
  const SUBSCRIPTIONS = 24
  let second: Db

  beforeAll(async () => {
    now = START
    for (let i = 0; i < SUBSCRIPTIONS; i += 1) {
      const { id } = await call('POST', '/subscriptions', {
        plan_id: subscriptionPlanId,
        customer_document: '52998224725',
        model_id: modelId,
      })
      await call('POST', `/subscriptions/${id}/payment`, {
        creditCard: { number: VISA, expiry: '1230', cvv: '123' },
      })
    }
    second = createDb(ctx.config.database)
  })
  afterAll(() => second?.destroy())

  it('two workers charging 4 at a time against a 300 ms gateway: each installment once, in parallel', async () => {
    now = new Date('2026-12-21T15:00:00.000Z')
    server.latencyMs = 300
    server.maxInFlight = 0
    const before = server.charges.length
    const started = Date.now()
    const worker = (db: Db) =>
      runRecurrence({
        db,
        gateway,
        clock,
        timeZone: ctx.config.timeZone,
        claimSeconds: CLAIM_SECONDS,
        concurrency: 4,
        batchSize: 5,
      })
    const [a, b] = await Promise.all([worker(ctx.db), worker(second)])
    const elapsed = Date.now() - started
    server.latencyMs = 0

    expect(a.charged + b.charged).toBe(SUBSCRIPTIONS)
    expect(a.errors + b.errors).toBe(0)
    expect(a.charged).toBeGreaterThan(0)
    expect(b.charged).toBeGreaterThan(0)
    const offSession = server.charges.slice(before).filter((pi) => pi.off_session)
    expect(offSession).toHaveLength(SUBSCRIPTIONS)
    const ledger = await ctx.db
      .selectFrom('payments')
      .select('installment_id')
      .where('route', '=', 'recurrence')
      .execute()
    expect(new Set(ledger.map((r) => r.installment_id)).size).toBe(SUBSCRIPTIONS)
    expect(ledger).toHaveLength(SUBSCRIPTIONS)
    // Charges overlapped (up to 2 × 4), and so the run took far less than 24 × 300 ms.
    expect(server.maxInFlight).toBeGreaterThan(4)
    expect(server.maxInFlight).toBeLessThanOrEqual(8)
    expect(elapsed).toBeLessThan((SUBSCRIPTIONS * 300) / 2)
  })
})
