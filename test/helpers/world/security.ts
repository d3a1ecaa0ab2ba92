import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, expect } from 'vitest'
import type { App } from '../../../src/app.js'
import type { Db } from '../../../src/db/database.js'
import type { GatewayMode } from '../../../src/db/tables/partner.js'
import { retryingTransaction } from '../../../src/db/transaction.js'
import { importCatalog } from '../../../src/modules/catalog/catalog-import.js'
import type { PaymentGateway } from '../../../src/modules/payments/payment-gateway.js'
import { SandboxGateway } from '../../../src/modules/payments/sandbox-gateway.js'
import { sandboxWith } from '../gateways.js'
import { createTestApp, type TestContext } from '../test-app.js'
import { seedCatalog } from './catalog.js'
import { bearer, partnerWithToken, type TestPartner } from './partners.js'
import { ANNUAL, seedPlans, TOTAL_12X } from './plans.js'
import {
  annualBody,
  clock,
  customerBody,
  ENV,
  type Json,
  type Method,
  NOW,
  shopkeeperBody,
  subscriptionBody,
} from './security-bodies.js'

export * from './security-bodies.js'

// The world of the security suite (test/security/): two partners ("sides" A and B), each in both
// gateway modes, every one with a customer, a store, plans, a pending subscription, an unpaid annual
// plan and an annual plan with an open cancellation, plus a brand and model only its side may sell.

export interface Party {
  side: 'A' | 'B'
  gateway: GatewayMode
  partnerId: number
  credentials: TestPartner
  token: string
  subscriptionPlanId: number
  annualPlanId: number
  /** Galaxy S25: every partner may sell it. */
  modelId: number
  /** A model (and its brand) only this party's side may sell. */
  exclusive: { brandId: number; modelId: number }
  customer: { id: number; document: string }
  storeId: number
  matrixStoreId: number
  subscription: { id: number; installmentIds: number[] }
  unpaidAnnualId: number
  annual: { id: number; protocol: string }
}

export interface World {
  db: Db
  app: App
  /** The app's context (its database's `config` and `env` too). */
  ctx: TestContext
  /** Card charges that reached the gateway. */
  charges: () => number
  a: Record<GatewayMode, Party>
  b: Record<GatewayMode, Party>
  call(method: Method, url: string, token: string | null, payload?: unknown, headers?: Json): Promise<Res>
  /** The body of a 2xx answer, failing the test otherwise. */
  ok(method: Method, url: string, token: string, payload?: unknown): Promise<Json>
  close(): Promise<void>
}
export type Res = LightMyRequestResponse

/**
 * The set-up fixture of a security test file: `const w = useSecurityWorld()` builds the world
 * before the file's first test (filled in place, as `useTestApp`'s context is) and closes it after
 * its last.
 */
export function useSecurityWorld(): World {
  const world = {} as World
  beforeAll(async () => {
    Object.assign(world, await createWorld())
  }, 120_000)
  afterAll(async () => {
    await world.close?.()
  })
  return world
}

/** The world on its own, for a file that closes it itself (`sqliteFile`: on a SQLite file, not in memory). */
export async function createWorld(options: { sqliteFile?: string } = {}): Promise<World> {
  let charges = 0
  const sandbox = new SandboxGateway()
  const gateway: PaymentGateway = sandboxWith({
    chargeCard: (charge) => {
      charges += 1
      return sandbox.chargeCard(charge)
    },
  })
  const ctx = await createTestApp({ env: ENV, clock, gateway, sqliteFile: options.sqliteFile })
  const { app, db } = ctx
  await seedCatalog(db)

  const call: World['call'] = (method, url, token, payload, headers = {}) =>
    app.inject({
      method,
      url,
      headers: { ...(token ? bearer(token) : {}), ...(headers as Record<string, string>) },
      ...(payload === undefined ? {} : { payload: payload as Json }),
    })
  const ok: World['ok'] = async (method, url, token, payload) => {
    const response = await call(method, url, token, payload)
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300)
    return response.json()
  }

  const model = await db
    .selectFrom('models')
    .select('id')
    .where('name', '=', 'Galaxy S25')
    .executeTakeFirstOrThrow()
  const seeded = (gateway: GatewayMode) => partnerWithToken(app, db, gateway)
  const partners = {
    A: { external: await seeded('external'), own: await seeded('own') },
    B: { external: await seeded('external'), own: await seeded('own') },
  }
  const exclusive = {
    A: await exclusiveModel(db, 'A', [partners.A.external.partner, partners.A.own.partner]),
    B: await exclusiveModel(db, 'B', [partners.B.external.partner, partners.B.own.partner]),
  }

  async function party(side: 'A' | 'B', gateway: GatewayMode): Promise<Party> {
    const { partner: credentials, token } = partners[side][gateway]
    const partnerId = credentials.id
    const now = NOW.toISOString()
    // Names by side, so that a plan shown to the other side is told apart.
    const [subscriptionPlan, annualPlan] = await seedPlans(
      db,
      partnerId,
      [
        { ...TOTAL_12X, name: `Mensal ${side}` },
        { ...ANNUAL, name: `Anual ${side}` },
      ],
      now,
    )
    const customer = await ok('POST', '/customers', token, customerBody())
    const store = await ok('POST', '/shopkeepers', token, shopkeeperBody())
    const matrix = await db
      .selectFrom('shopkeepers')
      .select('id')
      .where('partner_id', '=', partnerId)
      .where('matrix', '=', true)
      .executeTakeFirstOrThrow()
    const p = {
      side,
      gateway,
      partnerId,
      credentials,
      token,
      subscriptionPlanId: subscriptionPlan.id,
      annualPlanId: annualPlan.id,
      modelId: model.id,
      exclusive: exclusive[side],
      customer: { id: customer.id as number, document: customer.document as string },
      storeId: store.id as number,
      matrixStoreId: matrix.id,
    } as Party
    const subscription = await ok('POST', '/subscriptions', token, subscriptionBody(p))
    const installments = (await ok('GET', `/subscriptions/${subscription.id}/installments`, token)) as unknown
    p.subscription = {
      id: subscription.id as number,
      installmentIds: (installments as { id: number }[]).map((i) => i.id),
    }
    p.unpaidAnnualId = (await ok('POST', '/annual-plans', token, annualBody(p))).id as number
    const annualId = (await ok('POST', '/annual-plans', token, annualBody(p))).id as number
    const request = await ok('PUT', `/annual-plans/${annualId}/cancellation`, token, { reason: 'teste' })
    p.annual = { id: annualId, protocol: request.protocol as string }
    return p
  }

  const world: World = {
    db,
    app,
    ctx,
    charges: () => charges,
    a: { external: await party('A', 'external'), own: await party('A', 'own') },
    b: { external: await party('B', 'external'), own: await party('B', 'own') },
    call,
    ok,
    close: () => ctx.close(),
  }
  return world
}

/** A brand with one model that only the side's partners may sell. */
async function exclusiveModel(db: Db, side: string, partners: TestPartner[]) {
  const catalog = {
    brands: [{ name: `Marca ${side}`, models: [{ name: `Exclusivo ${side}`, default_lmi: 3000 }] }],
  }
  await retryingTransaction(db, (trx) => importCatalog(trx, catalog, NOW.toISOString()))
  const row = await db
    .selectFrom('models')
    .select(['id', 'brand_id'])
    .where('name', '=', `Exclusivo ${side}`)
    .executeTakeFirstOrThrow()
  await retryingTransaction(db, (trx) =>
    trx
      .insertInto('partner_models')
      .values(partners.map((p) => ({ partner_id: p.id, model_id: row.id, unavailable: false })))
      .execute(),
  )
  return { brandId: row.brand_id, modelId: row.id }
}

const MUTABLE = [
  'customers',
  'shopkeepers',
  'subscriptions',
  'installments',
  'payments',
  'annual_plans',
  'annual_plan_cancellations',
] as const

/** Every row of every table a request could change, to compare before and after. */
export async function snapshot(db: Db): Promise<Record<string, unknown[]>> {
  const entries = await Promise.all(
    MUTABLE.map(async (table) => [table, await db.selectFrom(table).selectAll().orderBy('id').execute()]),
  )
  return Object.fromEntries(entries)
}

/** Never a server fault: 2xx or 4xx, with a JSON body. */
export function expectHandled(response: Res, what: string) {
  expect(response.statusCode, `${what}: ${response.body.slice(0, 300)}`).toBeGreaterThanOrEqual(200)
  expect(response.statusCode, `${what}: ${response.body.slice(0, 300)}`).toBeLessThan(500)
}
