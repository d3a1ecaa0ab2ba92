/**
 * The world the claims-*.test.ts files share: one app on an injected clock, the seeded catalog, and
 * sellers (a partner with the 12x plan covering every peril, the 24x one without liquid damage, an
 * annual plan with a 10 % franchise rate, and a customer) whose contracts are paid at chosen times.
 */
import { afterAll, beforeAll, expect, vi } from 'vitest'
import { retryingTransaction } from '../../src/db/transaction.js'
import { formatTimestamp } from '../../src/shared/time.js'
import { customerBody, type Json, uniqueImei } from './bodies.js'
import { type TestContext, useTestApp } from './test-app.js'
import {
  ANNUAL,
  bearer,
  createCustomer,
  ESSENCIAL_24X,
  login,
  partnerWithToken,
  seedCatalog,
  seedPlans,
  type TestPartner,
  TOTAL_12X,
} from './world.js'

// 15:00 UTC is 12:00 in São Paulo (UTC−3 all year).
export const NOW = new Date('2026-11-21T15:00:00.000Z')
export const DAY = 86_400_000

export let ctx: TestContext
export let now = NOW
export let pro: number

export interface Seller {
  partner: TestPartner
  plans: { total: number; essencial: number; annual: number }
  customer: { id: number; document: string }
}

export interface ClaimBody {
  id: number
  number: string
  status: string
  status_label: string
  type: string
  type_label: string
  subscription_id: number | null
  annual_plan_id: number | null
  customer: { id: number; name: string; document: string }
  device: { model: { id: number; name: string }; serial_number: string | null }
  occurred_at: string
  description: string
  police_report: { number: string | null; issued_on: string | null } | null
  lmi: number
  franchise: number
  required_documents: string[]
  documents: unknown[]
  decision: unknown
  settlement: unknown
  created_at: string
  updated_at: string
}

export function useClaimsWorld() {
  // Each test contracts and pays through the API at several clock times: slow on a loaded machine.
  vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 })
  ctx = useTestApp({
    clock: { now: () => now },
    env: { AMPARO_LOGIN_RATE_LIMIT: '100000', AMPARO_RATE_LIMIT: '100000' },
  })
  beforeAll(async () => {
    pro = (await seedCatalog(ctx.db)).model('iPhone 16 Pro').id
  })
  // Tokens are kept by client id: they go with the file's database.
  afterAll(() => tokens.clear())
}

export const iso = (ms: number) => new Date(ms).toISOString()
export const daysAfter = (days: number, from = NOW) => iso(from.getTime() + days * DAY)
/** The instant as the API writes it (service zone). */
export const local = (instant: string) => formatTimestamp(instant, 'America/Sao_Paulo')

const tokens = new Map<string, string>()

/** Runs `work` with the clock at `instant`, then puts it back to NOW. */
export async function at<T>(instant: string, work: () => Promise<T>): Promise<T> {
  now = new Date(instant)
  try {
    return await work()
  } finally {
    now = NOW
  }
}

/** A call by the seller at the clock's current time (a token issued then). */
export async function call(
  s: Seller | TestPartner,
  method: 'GET' | 'POST',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  const partner = 'partner' in s ? s.partner : s
  const key = `${partner.clientId}@${now.getTime()}`
  let token = tokens.get(key)
  if (!token) {
    token = await login(ctx.app, partner)
    tokens.set(key, token)
  }
  return ctx.app.inject({
    method,
    url,
    headers: { ...bearer(token), ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  })
}

export async function ok<T = Json>(
  s: Seller,
  method: 'GET' | 'POST',
  url: string,
  payload?: unknown,
  status = 200,
) {
  const response = await call(s, method, url, payload)
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(status)
  return response.json() as T
}

export async function seller(): Promise<Seller> {
  const { partner, token } = await partnerWithToken(ctx.app, ctx.db, 'external')
  const [total, essencial, annual] = await seedPlans(ctx.db, partner.id, [
    TOTAL_12X,
    ESSENCIAL_24X,
    { ...ANNUAL, franchiseRateBp: 1000 },
  ])
  const customer = await createCustomer(ctx.app, token, customerBody())
  return { partner, plans: { total: total.id, essencial: essencial.id, annual: annual.id }, customer }
}

let serials = 0

/**
 * A subscription contracted and its installment 1 notified at `paidAt` (default 5 days before NOW);
 * its device named by a fresh `serial_number` unless `serials` names it otherwise.
 */
export async function paidSubscription(
  s: Seller,
  {
    paidAt = daysAfter(-5),
    plan = s.plans.total,
    serials: named,
  }: { paidAt?: string; plan?: number; serials?: Json } = {},
): Promise<number> {
  return at(paidAt, async () => {
    serials += 1
    const sub = await ok<{ id: number }>(
      s,
      'POST',
      '/subscriptions',
      {
        plan_id: plan,
        customer_id: s.customer.id,
        model_id: pro,
        ...(named ?? { serial_number: `SN-CLAIM-${process.pid}-${serials}` }),
      },
      201,
    )
    const [first] = await ok<{ id: number }[]>(s, 'GET', `/subscriptions/${sub.id}/installments`)
    await ok(s, 'POST', `/subscriptions/${sub.id}/installments/${first?.id}/notify-payment`)
    return sub.id
  })
}

/** An annual plan contracted and notified paid at `paidAt` (default 40 days before NOW: cover from the next day). */
export async function paidAnnualPlan(s: Seller, paidAt = daysAfter(-40)): Promise<number> {
  return at(paidAt, async () => {
    const plan = await ok<{ id: number }>(
      s,
      'POST',
      '/annual-plans',
      { model_id: pro, customer_id: s.customer.id, imei: uniqueImei(), payment: { method: 'pix' } },
      201,
    )
    await ok(s, 'POST', `/annual-plans/${plan.id}/notify-payment`)
    return plan.id
  })
}

/** A robbery claim body on the subscription, the loss a day before NOW. */
export const theft = (subscriptionId: number, extra: Json = {}): Json => ({
  subscription_id: subscriptionId,
  type: 'robbery',
  occurred_at: local(daysAfter(-1)),
  description: 'Celular roubado na saída do metrô.',
  police_report: { number: 'BO-2026-0001', issued_on: '2026-11-20' },
  ...extra,
})

export async function openClaim(s: Seller, body: Json): Promise<ClaimBody> {
  return ok<ClaimBody>(s, 'POST', '/claims', body, 201)
}

/** Marks a claim decided as approved (and settled by repair) at `decidedAt`, as an operator would. */
export async function approvedEarlier(claimId: number, decidedAt: string) {
  await retryingTransaction(ctx.db, (trx) =>
    trx
      .updateTable('claims')
      .set({
        status: 'settled',
        outcome: 'approved',
        settlement_method: 'repair',
        approved_amount: 100_000,
        payable_amount: 0,
        decided_at: decidedAt,
        settled_at: decidedAt,
        settlement_reference: 'OS-1',
        updated_at: decidedAt,
      })
      .where('id', '=', claimId)
      .execute(),
  )
}

/** Asserts an error answer: its status, `code`, and the given part of its body (`errors`). */
export function expectRefusal(
  response: { statusCode: number; body: string; json(): unknown },
  code: 'validation_failed' | 'invalid_state' | 'not_found',
  body: object,
) {
  expect(response.statusCode, response.body).toBe(code === 'not_found' ? 404 : 422)
  expect(response.json()).toMatchObject({ code, ...body })
}
