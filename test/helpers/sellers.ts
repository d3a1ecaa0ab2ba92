import { expect } from 'vitest'
import { bearer, createCustomer, type PartnerSeed, partnerWithToken, seedCatalog } from './factories.js'
import { ANNUAL, seedPlan, TOTAL_12X } from './plans.js'
import type { TestContext } from './test-app.js'

// A partner ready to sell through HTTP, for tests that tell a story request by request (the
// sandbox clock's): its token, a 12-installment plan and an annual one, one customer.

export interface Seller {
  partnerId: number
  token: string
  planId: number
  annualPlanId: number
  customerId: number
}

export async function seller(ctx: TestContext, seed: PartnerSeed = 'own'): Promise<Seller> {
  const { partner, token } = await partnerWithToken(ctx.app, ctx.db, seed)
  const plan = await seedPlan(ctx.db, partner.id, TOTAL_12X)
  const annual = await seedPlan(ctx.db, partner.id, ANNUAL)
  const customer = await createCustomer(ctx.app, token)
  return { partnerId: partner.id, token, planId: plan.id, annualPlanId: annual.id, customerId: customer.id }
}

type Method = 'GET' | 'POST' | 'PUT'

/** The seller's request, as it answers (any status). */
export const send = (ctx: TestContext, s: Seller, method: Method, url: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: bearer(s.token), ...(payload && { payload }) })

/** The seller's request, which must answer `status`; its JSON body. */
export async function answer(
  ctx: TestContext,
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

/** A subscription contracted by the seller for its customer on the test catalog's model; its id. */
export async function subscribe(ctx: TestContext, s: Seller, modelId: number): Promise<number> {
  const body = { plan_id: s.planId, customer_id: s.customerId, model_id: modelId }
  return (await answer(ctx, s, 'POST', '/subscriptions', body, 201)).id
}

/** The test catalog's Galaxy S25, which every seller's plans cover. */
export const galaxyOf = async (ctx: TestContext) => (await seedCatalog(ctx.db)).model('Galaxy S25').id
