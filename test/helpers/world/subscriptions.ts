/**
 * The world the subscriptions-*.test.ts files share: one app on an injected clock, the seeded
 * catalog, partner A (plans 12x, 24x, annual, an inactive 12x; customers Maria, João, a company,
 * an alphanumeric CNPJ) and partner B (a 12x plan, two customers, one subscription). Each file
 * calls `useSubscriptionsWorld()` once; the bindings below are filled in before its first test.
 */
import { beforeAll, expect } from 'vitest'
import { retryingTransaction } from '../../../src/db/transaction.js'
import type { Brand, Customer, Installment, Model, Subscription, SubscriptionQuote } from '../api-types.js'
import { ADDRESS, type ErrorBody, type Json, type PageBody } from '../bodies.js'
import { cpfOf, formatCpf } from '../documents.js'
import { expectedError } from '../errors.js'
import { type TestContext, useTestApp } from '../test-app.js'
import {
  ANNUAL,
  bearer,
  ESSENCIAL_24X,
  login,
  type PlanTemplate,
  seedCatalog,
  type TestPartner,
  TOTAL_12X,
  type Seller as WorldSeller,
  seller as worldSeller,
} from '../world.js'

// Expected amounts are worked out by hand in cents: LMI (cents) × rate (bp) ÷ 10000, half-up.

export type { Json }

// 15:04:05 UTC is 12:04:05 in São Paulo (UTC−3 all year since 2019).
export const NOW = new Date('2026-11-21T15:04:05.000Z')
export const CREATED_AT = '2026-11-21 12:04:05'

export const PLAN_INVALID = 'The selected plan id is invalid.'
export const MODEL_INVALID = 'The selected model id is invalid.'
export const CUSTOMER_INVALID = 'The selected customer id is invalid.'
export const CUSTOMER_REQUIRED = 'The customer id field is required when customer document is not present.'
export const CUSTOMER_DOCUMENT_UNKNOWN =
  'No customer of this partner has this document: register it with POST /customers.'
export const STORE_INVALID = 'The selected store id is invalid.'
export const SERIALS_EQUAL = 'The second serial number and serial number must be different.'
export const MAXIMA_DECIMALS = 'The maxima field must have at most 2 decimal places.'

export const MARIA = '529.982.247-25'
export const JOAO = formatCpf(cpfOf('123456789'))
export const CARLA = formatCpf(cpfOf('111444777'))
export const EMPRESA = '11.222.333/0001-81'
export const ALNUM = '12.ABC.345/01DE-35'
export const ALNUM_LOWER = '12abc34501de35'

export let ctx: TestContext
/** The injected clock reads this; tests that move it put it back. */
export let now = NOW
export let catalog: Awaited<ReturnType<typeof seedCatalog>>
/** iPhone 16 Pro: default LMI R$ 8,999.00 = 899900 cents; range 0.5–1.0 → [449950, 899900]. */
export let pro: number
/** The address the app answers on (inject sends `Host: localhost:80`). */
export let base: string

export function call(method: 'GET' | 'POST', url: string, token: string | null, payload?: unknown) {
  return ctx.app.inject({
    method,
    url,
    headers: token ? bearer(token) : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  })
}

export async function okJson<T>(token: string, url: string): Promise<T> {
  const response = await call('GET', url, token)
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200)
  return response.json() as T
}

export async function contract(token: string, payload: Json): Promise<Subscription> {
  const response = await call('POST', '/subscriptions', token, payload)
  expect(response.statusCode, response.body).toBe(201)
  return response.json() as Subscription
}

/** The 422's `errors`, after checking the Laravel message is the first error's text. */
export async function refused(token: string, payload: Json): Promise<Record<string, string[]>> {
  const response = await call('POST', '/subscriptions', token, payload)
  expect(response.statusCode, response.body).toBe(422)
  const body = response.json() as ErrorBody
  const errors = body.errors ?? {}
  expect(Object.keys(errors).length).toBeGreaterThan(0)
  expect(body.message.startsWith(Object.values(errors)[0]?.[0] ?? '')).toBe(true)
  return errors
}

export async function expect404(token: string, url: string) {
  const response = await call('GET', url, token)
  expect(response.statusCode, `${url}: ${response.body}`).toBe(404)
  expect(response.json()).toEqual(expectedError(response, 'not_found', { message: expect.any(String) }))
}

export async function installmentsOf(token: string, id: number): Promise<Installment[]> {
  return okJson<Installment[]>(token, `/subscriptions/${id}/installments`)
}

export async function quote(token: string, planId: number, modelId: number, maxima?: number | string) {
  const query = maxima === undefined ? '' : `&maxima=${maxima}`
  return okJson<SubscriptionQuote>(token, `/plans/${planId}/quotation?model_id=${modelId}${query}`)
}

export async function addCustomer(token: string, document: string, extra: Json = {}): Promise<Customer> {
  const response = await call('POST', '/customers', token, {
    name: 'Cliente Teste',
    document,
    email: 'cliente@example.com',
    phone: '(11) 98765-4321',
    ...extra,
  })
  expect(response.statusCode, response.body).toBe(201)
  return response.json() as Customer
}

/** A seller of the world builder, with its matrix store's id (from `GET /shopkeepers`). */
export interface Seller extends WorldSeller {
  matrix: number
}

/** A partner of its own with the given plans, no customer yet, and its matrix store. */
export async function seller(plans: PlanTemplate[]): Promise<Seller> {
  const built = await worldSeller(ctx, { plans, plansAt: NOW.toISOString(), customer: null })
  const stores = await okJson<PageBody<{ id: number; matrix: boolean }>>(built.token, '/shopkeepers')
  const matrix = stores.data.find((store) => store.matrix)
  expect(matrix).toBeDefined()
  return { ...built, matrix: matrix?.id ?? 0 }
}

/** Runs `fn` with the clock at `iso` and a token issued then; puts the clock back afterwards. */
export async function at<T>(
  iso: string,
  partner: TestPartner,
  fn: (token: string) => Promise<T>,
): Promise<T> {
  now = new Date(iso)
  try {
    return await fn(await login(ctx.app, partner))
  } finally {
    now = NOW
  }
}

export async function countRows(table: 'subscriptions' | 'installments'): Promise<number> {
  const row = await ctx.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Partner A: plans 12x, 24x, annual, and an inactive 12x. */
export let a: Seller
/** Partner B: one 12x plan of its own (150 bp). */
export let b: Seller
export let total: number
export let essencial: number
export let annual: number
export let inactive: number
export let otherPlan: number
export let maria: Customer
export let joao: Customer
export let empresa: Customer
export let alnum: Customer
/** B's customers: the same CPF as A's Maria, and one A does not have. */
export let mariaOfB: Customer
export let carlaOfB: Customer
export let subscriptionOfB: Subscription
/** Every subscription of B, oldest first. */
export const subscriptionsOfB: number[] = []

export const brandOf = (modelName: string): Brand => {
  const row = catalog.model(modelName)
  return { id: row.brand_id, name: row.brand, meta: { link: `${base}/brands/${row.brand_id}` } }
}
export const modelOf = (modelName: string): Model => {
  const row = catalog.model(modelName)
  return {
    id: row.id,
    name: row.name,
    brand: brandOf(modelName),
    meta: { link: `${base}/models/${row.id}` },
  }
}
export const minimal = (extra: Json = {}): Json => ({
  plan_id: total,
  customer_id: maria.id,
  model_id: pro,
  ...extra,
})

export function useSubscriptionsWorld(): void {
  ctx = useTestApp({ clock: { now: () => now } })
  beforeAll(async () => {
    catalog = await seedCatalog(ctx.db)
    pro = catalog.model('iPhone 16 Pro').id
  })
  beforeAll(async () => {
    a = await seller([TOTAL_12X, ESSENCIAL_24X, ANNUAL, { ...TOTAL_12X, name: 'Antigo 12x' }])
    ;[total, essencial, annual, inactive] = a.plans.map((plan) => plan.id) as [number, number, number, number]
    await retryingTransaction(ctx.db, (trx) =>
      trx.updateTable('plans').set({ active: false }).where('id', '=', inactive).execute(),
    )
    b = await seller([{ ...TOTAL_12X, name: 'Plano B', monthlyRateBp: 150 }])
    otherPlan = b.plans[0]?.id as number

    const stores = await okJson<PageBody<unknown>>(a.token, '/shopkeepers')
    base = stores.meta.path.replace(/\/shopkeepers$/, '')

    maria = await addCustomer(a.token, MARIA, { name: 'Maria da Silva', address: ADDRESS })
    joao = await addCustomer(a.token, JOAO, { name: 'João Souza' })
    empresa = await addCustomer(a.token, EMPRESA, { name: 'Empresa Ltda' })
    alnum = await addCustomer(a.token, ALNUM, { name: 'Empresa Alfanumérica' })
    mariaOfB = await addCustomer(b.token, MARIA, { name: 'Maria (B)' })
    carlaOfB = await addCustomer(b.token, CARLA, { name: 'Carla (B)' })
    subscriptionOfB = await contract(b.token, { plan_id: otherPlan, customer_id: mariaOfB.id, model_id: pro })
    // The list of a file's world: the previous file of this worker left its own (vitest.config.ts).
    subscriptionsOfB.length = 0
    subscriptionsOfB.push(subscriptionOfB.id)
  })
}
