/**
 * How a test gets its world: the catalog, a partner with a token, its plans, a customer and a
 * subscription. `seller(ctx)` builds a partner ready to sell in one call; the parts it is built
 * from (`seedCatalog`, `partnerWithToken`, `seedPlan`, `createCustomer`) are exported for tests
 * that need only one of them. Suites that share a larger scenario build it from these:
 * world/subscriptions.ts (the subscriptions-*.test.ts files), world/subscription-payments.ts,
 * world/demo.ts (the demo as `amparo demo` loads it, for the documented examples),
 * world/security.ts (the security suite's two sides), world/older-schema.ts (migration tests).
 */
import { expect } from 'vitest'
import type { App } from '../../src/app.js'
import type { Db } from '../../src/db/database.js'
import type { GatewayMode } from '../../src/db/tables/partner.js'
import type { Subscription } from './api-types.js'
import { MARIA } from './bodies.js'
import { seedCatalog } from './world/catalog.js'
import {
  bearer,
  createCustomer,
  login,
  type PartnerSeed,
  partnerWithToken,
  type TestPartner,
} from './world/partners.js'
import { ANNUAL, type PlanTemplate, type SeededPlan, seedPlans, TOTAL_12X } from './world/plans.js'

export * from './world/catalog.js'
export * from './world/partners.js'
export * from './world/plans.js'

/** What a test needs of its app: the app to call and the database to seed. */
export interface AppAndDb {
  app: App
  db: Db
}

/** A partner ready to sell: logged in, with its plans and one customer. */
export interface Seller {
  partner: TestPartner
  partnerId: number
  gateway: GatewayMode
  /** Issued at the app's clock when the seller was built; `login()` issues another. */
  token: string
  plans: SeededPlan[]
  /** The first subscription plan (0 when it has none). */
  planId: number
  /** The first annual plan (0 when it has none). */
  annualPlanId: number
  /** 0 when built with `customer: null`. */
  customerId: number
  login(): Promise<string>
}

export interface SellerOptions {
  /** The partner's gateway mode ('external' unless told), or its name and CNPJ too. */
  partner?: PartnerSeed
  /** Its plans, created in order: a 12-installment plan and an annual one unless told. */
  plans?: readonly PlanTemplate[]
  /** When its plans were created. */
  plansAt?: string
  /** The customer it registers through `POST /customers` (the seed's Maria unless told), or none. */
  customer?: object | null
}

/** `seller(ctx, 'own')` or `seller(ctx, { partner: 'own', plans: [ANNUAL], customer: null })`. */
export async function seller(ctx: AppAndDb, options: GatewayMode | SellerOptions = {}): Promise<Seller> {
  const {
    partner: seed = 'external',
    plans = [TOTAL_12X, ANNUAL],
    plansAt,
    customer = MARIA,
  } = typeof options === 'string' ? { partner: options } : options
  const { partner, token } = await partnerWithToken(ctx.app, ctx.db, seed)
  const seeded = await seedPlans(ctx.db, partner.id, plans, plansAt)
  const created = customer === null ? null : await createCustomer(ctx.app, token, customer)
  const gateway = typeof seed === 'string' ? seed : (seed.gateway ?? 'external')
  return {
    partner,
    partnerId: partner.id,
    gateway,
    token,
    plans: seeded,
    planId: seeded.find((plan) => plan.kind === 'subscription')?.id ?? 0,
    annualPlanId: seeded.find((plan) => plan.kind === 'annual')?.id ?? 0,
    customerId: created?.id ?? 0,
    login: () => login(ctx.app, partner),
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** The seller's request, as it answers (any status). */
export const send = (ctx: AppAndDb, s: Seller, method: Method, url: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: bearer(s.token), ...(payload && { payload }) })

/** The seller's request, which must answer `status`; its JSON body. */
export async function answer(
  ctx: AppAndDb,
  s: Seller,
  method: Method,
  url: string,
  payload?: object,
  status = 200,
) {
  const response = await send(ctx, s, method, url, payload)
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(status)
  return response.json()
}

/** A subscription contracted through `POST /subscriptions` by the seller for its customer; its body. */
export async function contractSubscription(
  ctx: AppAndDb,
  s: Seller,
  modelId: number,
  extra: object = {},
): Promise<Subscription> {
  const body = { plan_id: s.planId, customer_id: s.customerId, model_id: modelId, ...extra }
  return answer(ctx, s, 'POST', '/subscriptions', body, 201)
}

/** The same, when only its id matters. */
export const subscribe = async (ctx: AppAndDb, s: Seller, modelId: number): Promise<number> =>
  (await contractSubscription(ctx, s, modelId)).id

/** The test catalog's Galaxy S25, which every seller's plans cover; seeds the catalog. */
export const galaxyOf = async (ctx: AppAndDb) => (await seedCatalog(ctx.db)).model('Galaxy S25').id
