import { InsertQueryNode, type KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { gatewayOf, loadKeyNamespace } from '../src/modules/payments/gateway-factory.js'
import type { PaymentGateway } from '../src/modules/payments/payment-gateway.js'
import { createMetrics } from '../src/plugins/metrics.js'
import type { Clock } from '../src/shared/time.js'
import { runReconciliation } from '../src/worker/reconcile.job.js'
import { runJobsOnce } from '../src/worker/worker.js'
import { StripeServer } from './helpers/stripe-server.js'
import { buildCheckedApp } from './helpers/test-app.js'
import { createTestDatabase, type TestDatabase, withPlugin } from './helpers/test-db.js'
import {
  ANNUAL,
  bearer,
  createCustomer,
  login,
  partnerWithToken,
  seedCatalog,
  seedPlan,
  type TestPartner,
  TOTAL_12X,
} from './helpers/world.js'

// Against one local Stripe-compatible server: Stripe's own call shapes, two databases on one
// account, the card-testing limit, and a charge the database failed to record, reconciled.

const START = new Date('2026-11-21T15:00:00.000Z')
let now = START
const clock: Clock = { now: () => now }
const VISA = '4111111111111111'
const DECLINED = '4000000000000002'
const card = (number: string) => ({ creditCard: { number, expiry: '1230', cvv: '123' } })

const server = new StripeServer()
const env = {
  AMPARO_PAYMENT_GATEWAY: 'stripe',
  STRIPE_SECRET_KEY: 'sk_test_amparo0fake0key',
  AMPARO_PAYMENT_CLAIM_SECONDS: '60',
}

interface Deployment {
  database: TestDatabase
  app: App
  partner: TestPartner
  token: string
  planId: number
  modelId: number
}

async function deployment(extra: Record<string, string> = {}): Promise<Deployment> {
  const database = await createTestDatabase({ env: { ...env, STRIPE_API_URL: server.url, ...extra } })
  const { model } = await seedCatalog(database.db)
  const app = await buildCheckedApp({ config: database.config, db: database.db, clock, logger: false })
  const { partner, token } = await partnerWithToken(app, database.db, 'own')
  await createCustomer(app, token)
  const plan = await seedPlan(database.db, partner.id, TOTAL_12X, START.toISOString())
  return { database, app, partner, token, planId: plan.id, modelId: model('Galaxy S25').id }
}

// Not useTestApp: several deployments (a database and an app each) share one Stripe account.
const deployments: Deployment[] = []
let a: Deployment

beforeAll(async () => {
  await server.start()
  a = await deployment()
  deployments.push(a)
})
afterAll(async () => {
  for (const d of deployments) {
    await d.app.close()
    await d.database.drop()
  }
  await server.stop()
})

async function subscription(d: Deployment, app = d.app): Promise<{ id: number; firstId: number }> {
  const created = await app.inject({
    method: 'POST',
    url: '/subscriptions',
    headers: bearer(d.token),
    payload: { plan_id: d.planId, customer_document: '52998224725', model_id: d.modelId },
  })
  expect(created.statusCode, created.body).toBe(201)
  const { id } = created.json()
  const first = await d.database.db
    .selectFrom('installments')
    .select('id')
    .where('subscription_id', '=', id)
    .where('number', '=', 1)
    .executeTakeFirstOrThrow()
  return { id, firstId: first.id }
}

const pay = (d: Deployment, id: number, number: string, app = d.app) =>
  app.inject({
    method: 'POST',
    url: `/subscriptions/${id}/payment`,
    headers: bearer(d.token),
    payload: card(number),
  })

describe('Stripe’s call shapes', () => {
  it('the Stripe-compatible server refuses a raw card number in payment_method_data, as Stripe’s document does', async () => {
    const response = await fetch(`${server.url}/v1/payment_intents`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_x', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount=100&currency=brl&confirm=true&payment_method_data[type]=card&payment_method_data[card][number]=4242424242424242',
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        code: 'parameter_unknown',
        param: 'payment_method_data[card][number]',
      },
    })
  })
})

describe('two databases on one Stripe account', () => {
  it('make distinct Stripe objects and never share an idempotency key', async () => {
    const b = await deployment()
    deployments.push(b)
    const [nsA, nsB] = [await loadKeyNamespace(a.database.db), await loadKeyNamespace(b.database.db)]
    expect(nsA).not.toBe(nsB)
    // The namespace is made once: the same database answers it again.
    expect(await loadKeyNamespace(a.database.db)).toBe(nsA)

    const before = server.requests.length
    const sa = await subscription(a)
    const sb = await subscription(b)
    // The same Amparo ids on both sides: what collided when keys were `amparo-<id>`.
    expect(sa.firstId).toBe(sb.firstId)
    expect((await pay(a, sa.id, VISA)).statusCode).toBe(200)
    expect((await pay(b, sb.id, VISA)).statusCode).toBe(200)

    const sent = server.requests.slice(before)
    const keysA = sent.filter((r) => r.idempotencyKey?.startsWith(`${nsA}-`)).map((r) => r.idempotencyKey)
    const keysB = sent.filter((r) => r.idempotencyKey?.startsWith(`${nsB}-`)).map((r) => r.idempotencyKey)
    expect(keysA.length).toBeGreaterThanOrEqual(3)
    expect(keysB).toHaveLength(keysA.length)
    expect(keysA.filter((key) => keysB.includes(key))).toEqual([])
    expect(sent.every((r) => r.processed)).toBe(true)

    const charged = async (d: Deployment, id: number) =>
      (
        await d.database.db
          .selectFrom('payments')
          .select('transaction_id')
          .where('subscription_id', '=', id)
          .where('outcome', '=', 'approved')
          .executeTakeFirstOrThrow()
      ).transaction_id
    const [piA, piB] = [await charged(a, sa.id), await charged(b, sb.id)]
    expect(piA).not.toBe(piB)
    expect(server.charges.map((pi) => pi.id)).toEqual(expect.arrayContaining([piA, piB]))
    const customers = async (d: Deployment) =>
      (await d.database.db.selectFrom('gateway_customers').select('gateway_customer_id').execute()).map(
        (r) => r.gateway_customer_id,
      )
    const [ca, cb] = [await customers(a), await customers(b)]
    expect(ca.filter((id) => cb.includes(id))).toEqual([])
  })
})

describe('the card-testing limit', () => {
  it('refuses the 6th declined attempt of a day on one contract with 429 before Stripe is called', async () => {
    now = START
    const metrics = createMetrics(a.database.db)
    const app = await buildCheckedApp({
      config: a.database.config,
      db: a.database.db,
      clock,
      metrics,
      logger: false,
    })
    try {
      const s = await subscription(a, app)
      for (let i = 0; i < 5; i += 1) expect((await pay(a, s.id, DECLINED, app)).statusCode).toBe(402)
      const before = server.requests.length
      const refused = await pay(a, s.id, VISA, app)
      expect(refused.statusCode, refused.body).toBe(429)
      expect(refused.json()).toMatchObject({ code: 'rate_limited' })
      const retryAfter = Number(refused.headers['retry-after'])
      expect(retryAfter).toBeGreaterThan(86_000)
      expect(retryAfter).toBeLessThanOrEqual(86_400)
      expect(server.requests.length).toBe(before)
      expect(await metrics.registry.getSingleMetricAsString('amparo_card_testing_refusals_total')).toMatch(
        /amparo_card_testing_refusals_total\{scope="contract"\} 1/,
      )
      // A day after the first decline, one attempt is allowed again.
      now = new Date(START.getTime() + 86_400_000 + 1_000)
      const tomorrow = { ...a, token: await login(app, a.partner) }
      expect((await pay(tomorrow, s.id, VISA, app)).statusCode).toBe(200)
    } finally {
      now = START
      await app.close()
    }
  })

  it('refuses past the partner’s daily limit across its contracts, card updates included', async () => {
    now = START
    const d = await deployment({ AMPARO_CARD_DECLINES_PER_PARTNER: '3' })
    deployments.push(d)
    const [one, two, three] = [await subscription(d), await subscription(d), await subscription(d)]
    expect((await pay(d, one.id, DECLINED)).statusCode).toBe(402)
    expect((await pay(d, two.id, DECLINED)).statusCode).toBe(402)
    // A card update's declined check counts too.
    expect((await pay(d, three.id, VISA)).statusCode).toBe(200)
    const update = await d.app.inject({
      method: 'PUT',
      url: `/subscriptions/${three.id}/card`,
      headers: bearer(d.token),
      payload: card(DECLINED),
    })
    expect(update.statusCode, update.body).toBe(402)
    const before = server.requests.length
    const fourth = await subscription(d)
    const refused = await pay(d, fourth.id, VISA)
    expect(refused.statusCode, refused.body).toBe(429)
    expect(refused.headers['retry-after']).toBeDefined()
    expect(refused.json().message).toContain('partner')
    expect(server.requests.length).toBe(before)
  })
})

/**
 * An app of `d` whose settling transactions fail at the ledger insert, as when the database goes
 * away after Stripe answered.
 */
async function ledgerFailing(d: Deployment): Promise<App> {
  const ledgerFails: KyselyPlugin = {
    transformQuery: ({ node }) => {
      if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'payments') {
        throw Object.assign(new Error('terminating connection due to administrator command'), {
          code: '57P01',
        })
      }
      return node
    },
    transformResult: async ({ result }) => result,
  }
  return buildCheckedApp({
    config: d.database.config,
    db: withPlugin(d.database.db, ledgerFails),
    clock,
    logger: false,
  })
}

describe('a charge Stripe approved but the database could not record', () => {
  it('is recorded by the worker from the stored attempt: one charge, installment paid, its events', async () => {
    now = START
    const broken = await ledgerFailing(a)
    try {
      const s = await subscription(a)
      const intentsBefore = server.paymentIntents.length
      const failed = await pay(a, s.id, VISA, broken)
      expect(failed.statusCode, failed.body).toBe(503)
      const reference = `subscription-${s.id}-installment-1`
      const charges = () =>
        server.paymentIntents
          .slice(intentsBefore)
          .filter((pi) => pi.status === 'succeeded' && pi.params['metadata[amparo_reference]'] === reference)
      expect(charges()).toHaveLength(1)
      const status = async () =>
        (
          await a.database.db
            .selectFrom('installments')
            .select('status')
            .where('id', '=', s.firstId)
            .executeTakeFirstOrThrow()
        ).status
      expect(await status()).toBe('pending')

      const gateway = (await gatewayOf(a.database.config, a.database.db)) as PaymentGateway
      const deps = { db: a.database.db, clock, timeZone: a.database.config.timeZone, gateway }
      // While the call could still be in flight, the worker leaves the attempt alone.
      expect(await runReconciliation(deps)).toEqual({ recorded: 0, errors: 0 })
      now = new Date(START.getTime() + 40_000)
      expect(await runReconciliation(deps)).toEqual({ recorded: 1, errors: 0 })
      expect(await runReconciliation(deps)).toEqual({ recorded: 0, errors: 0 })

      expect(charges()).toHaveLength(1)
      expect(await status()).toBe('paid')
      const ledger = await a.database.db
        .selectFrom('payments')
        .select(['outcome', 'transaction_id'])
        .where('installment_id', '=', s.firstId)
        .execute()
      expect(ledger).toEqual([{ outcome: 'approved', transaction_id: charges()[0]?.id }])
      const events = await a.database.db
        .selectFrom('events')
        .select('type')
        .where('partner_id', '=', a.partner.id)
        .where('data', 'like', `%"id":${s.id},%`)
        .execute()
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['subscription.activated']))
      const shown = await a.app.inject({ url: `/subscriptions/${s.id}`, headers: bearer(a.token) })
      expect(shown.json()).toMatchObject({ status: 'pago', card: { brand: 'visa', last4: '1111' } })
    } finally {
      now = START
      await broken.close()
    }
  })

  it('is not canceled by the 30-day expiry while unrecorded: the worker records it once Stripe answers', async () => {
    now = START
    const broken = await ledgerFailing(a)
    const s = await subscription(a)
    try {
      expect((await pay(a, s.id, VISA, broken)).statusCode).toBe(503)
    } finally {
      await broken.close()
    }
    const reference = `subscription-${s.id}-installment-1`
    const charges = () =>
      server.paymentIntents.filter(
        (pi) => pi.status === 'succeeded' && pi.params['metadata[amparo_reference]'] === reference,
      )
    expect(charges()).toHaveLength(1)
    const status = async () =>
      (
        await a.database.db
          .selectFrom('subscriptions')
          .select('status')
          .where('id', '=', s.id)
          .executeTakeFirstOrThrow()
      ).status

    // Past the 30 days, with Stripe unavailable: the reconciliation fails, the expiry leaves it.
    now = new Date(START.getTime() + 31 * 86_400_000)
    const gateway = (await gatewayOf(a.database.config, a.database.db, {
      maxNetworkRetries: 0,
      timeoutMs: 2_000,
    })) as PaymentGateway
    const deps = { db: a.database.db, clock, timeZone: a.database.config.timeZone, gateway }
    server.failNext(500, '/v1/payment_intents', 1_000)
    try {
      const down = await runJobsOnce(deps)
      expect(down.reconciliation).toEqual({ recorded: 0, errors: 1 })
      expect(down.expiry).toEqual({ canceled: 0 })
    } finally {
      server.failNext(0)
    }
    expect(await status()).toBe('pending')

    const up = await runJobsOnce(deps)
    expect(up.reconciliation).toEqual({ recorded: 1, errors: 0 })
    expect(up.expiry).toEqual({ canceled: 0 })
    expect(await status()).toBe('pago')
    expect(charges()).toHaveLength(1)
    now = START
  })

  it('is not canceled by its partner while unrecorded: 409 payment_in_progress with Retry-After, then canceled once recorded', async () => {
    now = START
    const broken = await ledgerFailing(a)
    const s = await subscription(a)
    try {
      expect((await pay(a, s.id, VISA, broken)).statusCode).toBe(503)
    } finally {
      await broken.close()
    }
    const cancel = () =>
      a.app.inject({
        method: 'POST',
        url: `/subscriptions/${s.id}/cancellation`,
        headers: bearer(a.token),
        payload: { reason: 'cliente desistiu' },
      })
    const installment1 = async () =>
      (
        await a.database.db
          .selectFrom('installments')
          .select('status')
          .where('id', '=', s.firstId)
          .executeTakeFirstOrThrow()
      ).status

    // Past the claim (60 s): no call holds installment 1 any more, but Stripe took the money.
    now = new Date(START.getTime() + 61_000)
    const refused = await cancel()
    expect(refused.statusCode, refused.body).toBe(409)
    expect(refused.json()).toMatchObject({ code: 'payment_in_progress' })
    expect(refused.headers['retry-after']).toBe('10')
    expect(await installment1()).toBe('pending')

    const gateway = (await gatewayOf(a.database.config, a.database.db)) as PaymentGateway
    const deps = { db: a.database.db, clock, timeZone: a.database.config.timeZone, gateway }
    // At least this one (an earlier test's leftover would be recorded too).
    expect((await runReconciliation(deps)).recorded).toBeGreaterThanOrEqual(1)
    expect(await installment1()).toBe('paid')

    const canceled = await cancel()
    expect(canceled.statusCode, canceled.body).toBe(200)
    expect(canceled.json()).toMatchObject({ status: 'canceled' })
    // The charge that went through is the paid installment 1; the rest is canceled.
    expect(await installment1()).toBe('paid')
    const reference = `subscription-${s.id}-installment-1`
    expect(
      server.paymentIntents.filter((pi) => pi.params['metadata[amparo_reference]'] === reference),
    ).toHaveLength(1)
    now = START
  })

  it('an annual plan is not canceled while its charge is unrecorded: 409 with Retry-After, then canceled once recorded', async () => {
    now = START
    const annual = await seedPlan(a.database.db, a.partner.id, ANNUAL, START.toISOString())
    const created = await a.app.inject({
      method: 'POST',
      url: '/annual-plans',
      headers: bearer(a.token),
      payload: {
        model_id: a.modelId,
        customer_document: '52998224725',
        plan_id: annual.id,
        imei: '490154203237518',
      },
    })
    expect(created.statusCode, created.body).toBe(201)
    const { id } = created.json()
    const broken = await ledgerFailing(a)
    try {
      const paid = await broken.inject({
        method: 'POST',
        url: `/annual-plans/${id}/payment`,
        headers: bearer(a.token),
        payload: { card_number: VISA, card_holder: 'MARIA', card_expiry: '12/30', card_cvv: '123' },
      })
      expect(paid.statusCode, paid.body).toBe(503)
    } finally {
      await broken.close()
    }
    now = new Date(START.getTime() + 61_000)
    const requested = await a.app.inject({
      method: 'PUT',
      url: `/annual-plans/${id}/cancellation`,
      headers: bearer(a.token),
      payload: {},
    })
    expect(requested.statusCode, requested.body).toBeLessThan(300)
    const { protocol } = requested.json()
    const confirm = () =>
      a.app.inject({
        method: 'POST',
        url: `/annual-plans/${id}/cancellation/${protocol}`,
        headers: bearer(a.token),
      })
    const refused = await confirm()
    expect(refused.statusCode, refused.body).toBe(409)
    expect(refused.json()).toMatchObject({ code: 'payment_in_progress' })
    expect(refused.headers['retry-after']).toBe('10')

    const gateway = (await gatewayOf(a.database.config, a.database.db)) as PaymentGateway
    const deps = { db: a.database.db, clock, timeZone: a.database.config.timeZone, gateway }
    expect((await runReconciliation(deps)).recorded).toBeGreaterThanOrEqual(1)
    const confirmed = await confirm()
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    // Paid, then canceled: the premium taken is refunded by the cancellation, not lost.
    expect(confirmed.json()).toMatchObject({ status: 'canceled' })
    expect(confirmed.json().cancellation.refund_amount).toBeGreaterThan(0)
    const charges = server.paymentIntents.filter(
      (pi) => pi.status === 'succeeded' && pi.params['metadata[amparo_reference]'] === `annual-plan-${id}`,
    )
    expect(charges).toHaveLength(1)
    now = START
  })
})
