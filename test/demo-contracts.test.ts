import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_FAILING_WEBHOOK, type DemoPartner, loadDemo } from '../src/demo/demo.js'
import { DEMO_CARD_CONTRACTS } from '../src/demo/demo-card-contracts.js'
import { formatTimestamp } from '../src/shared/time.js'
import { deliverWebhooksOnce } from '../src/worker/webhooks.job.js'
import type { AnnualPlan, Subscription } from './helpers/api-types.js'
import { type ConsoleTestContext, createConsoleApp } from './helpers/console.js'
import { createTestApp, type TestContext } from './helpers/test-app.js'
import { bearer, login } from './helpers/world.js'

// What the demo holds for each gateway mode (docs/decisions.md, Demo data): the own-gateway
// partner's contracts paid by card through the sandbox gateway, and the external partner's webhook
// endpoint that nothing answers, whose failed deliveries the console's Parceiros screen shows.

let ctx: TestContext
let consoleCtx: ConsoleTestContext
let partners: DemoPartner[]
const partner = (gateway: 'external' | 'own') => partners.find((p) => p.gateway === gateway) as DemoPartner

beforeAll(async () => {
  ctx = await createTestApp()
  await ctx.app.ready()
  consoleCtx = await createConsoleApp({ over: () => ctx })
  await consoleCtx.console.ready()
  ;({ partners } = await loadDemo(ctx.db, ctx.config, new Date().toISOString()))
})
afterAll(async () => {
  await consoleCtx?.close()
  await ctx?.close()
})

async function get<T>(token: string, url: string): Promise<T> {
  const response = await ctx.app.inject({ method: 'GET', url, headers: bearer(token) })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}

const count = async (table: 'subscriptions' | 'annual_plans' | 'webhook_endpoints' | 'customers') =>
  Number(
    (
      await ctx.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

describe("the own-gateway demo partner's contracts", () => {
  let token: string
  beforeAll(async () => {
    const own = partner('own')
    token = await login(ctx.app, { id: own.id, clientId: own.client_id, clientSecret: own.client_secret })
  })

  it('holds a subscription and an annual plan paid by card a week ago, with certificates', async () => {
    const { data: subscriptions } = await get<{ data: Subscription[] }>(token, '/subscriptions')
    expect(subscriptions).toHaveLength(1)
    const [subscription] = subscriptions as [Subscription]
    expect(subscription.status).toBe('pago')
    expect(subscription.customer.name).toBe(DEMO_CARD_CONTRACTS.customer.name)
    expect(subscription.card).toMatchObject({ brand: 'mastercard', last4: '4444' })
    expect(subscription.policy_number).toMatch(/^AMP-\d{4}-\d{6}$/)

    const { data: plans } = await get<{ data: AnnualPlan[] }>(token, '/annual-plans')
    expect(plans).toHaveLength(1)
    const [plan] = plans as [AnnualPlan]
    expect(plan.status).toBe('protected')
    expect(plan.payment?.card).toMatchObject({ brand: 'mastercard', last4: '4444' })

    for (const url of [
      `/subscriptions/${subscription.id}/certificate`,
      `/annual-plans/${plan.id}/certificate`,
    ]) {
      const certificate = await ctx.app.inject({ method: 'GET', url, headers: bearer(token) })
      expect(certificate.statusCode, certificate.body).toBe(200)
      expect(certificate.headers['content-type']).toBe('application/pdf')
    }
  })

  it('can claim on both at once', async () => {
    const yesterday = formatTimestamp(new Date(Date.now() - 86_400_000).toISOString(), ctx.config.timeZone)
    const { data: subscriptions } = await get<{ data: Subscription[] }>(token, '/subscriptions')
    const { data: plans } = await get<{ data: AnnualPlan[] }>(token, '/annual-plans')
    for (const contract of [{ subscription_id: subscriptions[0]?.id }, { annual_plan_id: plans[0]?.id }]) {
      const opened = await ctx.app.inject({
        method: 'POST',
        url: '/claims',
        headers: bearer(token),
        payload: {
          ...contract,
          type: 'accidental_damage',
          occurred_at: yesterday,
          description: 'O aparelho caiu e a tela trincou.',
        },
      })
      expect(opened.statusCode, opened.body).toBe(201)
    }
  })

  it('a second load charges and contracts nothing more', async () => {
    const before = await Promise.all([count('subscriptions'), count('annual_plans'), count('customers')])
    const payments = await ctx.db.selectFrom('payments').select('id').execute()
    await loadDemo(ctx.db, ctx.config, new Date().toISOString())
    expect(await Promise.all([count('subscriptions'), count('annual_plans'), count('customers')])).toEqual(
      before,
    )
    expect(await ctx.db.selectFrom('payments').select('id').execute()).toEqual(payments)
  })
})

describe("the external demo partner's failing webhook endpoint", () => {
  it('is registered once, and the worker records its deliveries as failed: Parceiros shows them', async () => {
    expect(await count('webhook_endpoints')).toBe(1)
    const result = await deliverWebhooksOnce({
      db: ctx.db,
      clock: { now: () => new Date() },
      timeZone: ctx.config.timeZone,
      env: 'test',
    })
    expect(result.dispatched).toBeGreaterThan(0)
    expect(result.retried).toBe(result.dispatched)
    expect(result.succeeded).toBe(0)

    const admin = await consoleCtx.loginAs('viewer')
    const list = await consoleCtx.console.inject({ method: 'GET', url: '/api/partners', headers: admin })
    expect(list.statusCode, list.body).toBe(200)
    const rows = list.json() as { id: number; failing_endpoints: number }[]
    expect(rows.find((p) => p.id === partner('external').id)?.failing_endpoints).toBe(1)
    expect(rows.find((p) => p.id === partner('own').id)?.failing_endpoints).toBe(0)

    const detail = await consoleCtx.console.inject({
      method: 'GET',
      url: `/api/partners/${partner('external').id}`,
      headers: admin,
    })
    expect(detail.statusCode, detail.body).toBe(200)
    const [endpoint] = detail.json().webhook_endpoints
    expect(endpoint).toMatchObject({
      url: DEMO_FAILING_WEBHOOK.url,
      status: 'enabled',
      failing_since: expect.any(String),
      deliveries_24h: { succeeded: 0, failed: 0, pending: result.dispatched },
    })
    expect(endpoint.failing).toHaveLength(result.dispatched)
    expect(endpoint.failing[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: null,
      last_error: 'connection failed (ECONNREFUSED)',
    })
  })
})
