import type { AddressInfo } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { type AmparoClient, AmparoError, createAmparoClient } from '../../clients/typescript/src/index.js'
import { type DemoPartner, loadDemo } from '../../src/demo/demo.js'
import { uniqueImei } from '../helpers/bodies.js'
import { useTestApp } from '../helpers/test-app.js'

// The README's main flows through @amparo/client, against the app listening on a real socket with
// the demo loaded: the client sees what a partner's program would.

/** The app's clock, moved forward by the token-expiry test. */
let offsetMs = 0
const clock = { now: () => new Date(Date.now() + offsetMs) }

const ctx = useTestApp({ clock })
let baseUrl: string
let demo: DemoPartner[]
/** What the external partner's client sent: method, path and headers of every request. */
const sent: { method: string; path: string; headers: Headers }[] = []
let amparo: AmparoClient
let own: AmparoClient

beforeAll(async () => {
  demo = (await loadDemo(ctx.db, ctx.config, new Date().toISOString())).partners
  await ctx.app.listen({ host: '127.0.0.1', port: 0 })
  baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`
  const partner = (gateway: string) => demo.find((p) => p.gateway === gateway) as DemoPartner
  const external = partner('external')
  amparo = createAmparoClient({
    baseUrl,
    clientId: external.client_id,
    clientSecret: external.client_secret,
    fetch: (input, init) => {
      sent.push({
        method: init?.method ?? 'GET',
        path: new URL(String(input)).pathname,
        headers: new Headers(init?.headers),
      })
      return fetch(input, init)
    },
  })
  const { client_id, client_secret } = partner('own')
  own = createAmparoClient({ baseUrl, clientId: client_id, clientSecret: client_secret })
})

const MARIA = {
  name: 'Maria da Silva',
  document: '529.982.247-25',
  email: 'maria@example.com',
  phone: '(11) 98765-4321',
  address: {
    street: 'Avenida Paulista',
    number: 1000,
    complement: null,
    zipcode: '01310-100',
    neighborhood: 'Bela Vista',
    city: 'São Paulo',
    state: 'SP',
  },
}

/** The demo's Galaxy S25 (default LMI 6,499), found as a partner would. */
async function galaxyS25(client: AmparoClient) {
  const { data } = await client.GET('/models', { params: { query: { 'filter[name]': 'Galaxy S25' } } })
  const model = data.data.find((m) => m.name === 'Galaxy S25')
  if (!model) throw new Error('the demo has no Galaxy S25')
  return model
}

/** The first subscription plan of the partner. */
async function firstPlan(client: AmparoClient) {
  const { data } = await client.GET('/plans')
  if (!data[0]) throw new Error('the partner has no subscription plan')
  return data[0]
}

describe('the client against a listening server', () => {
  it('logs in by itself and reads the catalog', async () => {
    const brands = await amparo.GET('/brands', { params: { query: { page: 1, per_page: 15 } } })
    expect(brands.data.data.length).toBeGreaterThan(0)
    expect(brands.data.meta.current_page).toBe(1)
    expect(sent[0]).toMatchObject({ method: 'POST', path: '/auth/login' })

    const model = await galaxyS25(amparo)
    const { data } = await amparo.GET('/models/{modelId}', { params: { path: { modelId: model.id } } })
    expect(data).toMatchObject({ id: model.id, name: 'Galaxy S25', brand: { name: 'Samsung' } })
    const brand = await amparo.GET('/brands/{brandId}', {
      params: { path: { brandId: data.brand.id }, query: { include: 'models,modelCount' } },
    })
    expect(brand.data.models?.map((m) => m.name)).toContain('Galaxy S25')
  })

  it('quotes a subscription plan and an annual plan', async () => {
    const model = await galaxyS25(amparo)
    const plan = await firstPlan(amparo)
    const quotation = await amparo.GET('/quotation', {
      params: { query: { model_id: model.id, maxima: 4500 } },
    })
    expect(quotation.data.plans.map((p) => p.lmi)).toContain(4500)
    const one = await amparo.GET('/plans/{planId}/quotation', {
      params: { path: { planId: plan.id }, query: { model_id: model.id } },
    })
    expect(one.data).toMatchObject({ id: plan.id, lmi: 6499 })
    const annual = await amparo.GET('/annual-plans/quote', {
      params: { query: { model_id: model.id, used: true } },
    })
    expect(annual.data).toMatchObject({ model: { id: model.id }, lmi: 6499 })
    expect(annual.data.premium).toBeGreaterThan(0)
  })

  it('contracts a subscription and notifies the payment of its first installment (external gateway)', async () => {
    const customer = await amparo.POST('/customers', { body: MARIA })
    expect(customer.response.status).toBe(201)
    expect(customer.data.document).toBe('52998224725')
    const model = await galaxyS25(amparo)
    const plan = await firstPlan(amparo)

    const { data: subscription } = await amparo.POST('/subscriptions', {
      body: {
        plan_id: plan.id,
        customer_document: '52998224725',
        model_id: model.id,
        serial_number: uniqueImei(),
        is_used: false,
        maxima: 4500,
        metadata: { origin: 'pdv-01' },
      },
    })
    expect(subscription.status).toBe('pending')
    const path = { subscriptionId: subscription.id }
    const { data: installments } = await amparo.GET('/subscriptions/{subscriptionId}/installments', {
      params: { path },
    })
    expect(installments).toHaveLength(plan.installments)
    const first = installments[0] as (typeof installments)[number]
    const paid = await amparo.POST(
      '/subscriptions/{subscriptionId}/installments/{installmentId}/notify-payment',
      {
        params: { path: { ...path, installmentId: first.id } },
      },
    )
    expect(paid.data).toMatchObject({ id: first.id, number: 1, status: 'paid', status_label: 'Pago' })
    const { data } = await amparo.GET('/subscriptions/{subscriptionId}', { params: { path } })
    expect(data.status).toBe('pago')
  })

  it('contracts a subscription and pays it by card (own gateway); a declined card is a 402 AmparoError', async () => {
    await own.POST('/customers', { body: { ...MARIA, address: undefined } })
    const model = await galaxyS25(own)
    const plan = await firstPlan(own)
    const contract = () =>
      own.POST('/subscriptions', {
        body: { plan_id: plan.id, customer_document: '52998224725', model_id: model.id, maxima: 4500 },
      })
    const card = (number: string) => ({
      creditCard: { number, expiry: '1230', cvv: '123', holder: 'MARIA DA SILVA' },
    })

    const { data: subscription } = await contract()
    const { data } = await own.POST('/subscriptions/{subscriptionId}/payment', {
      params: { path: { subscriptionId: subscription.id } },
      body: card('4111111111111111'),
    })
    expect(data).toMatchObject({ id: subscription.id, status: 'pago' })

    const { data: another } = await contract()
    const declined = await own
      .POST('/subscriptions/{subscriptionId}/payment', {
        params: { path: { subscriptionId: another.id } },
        body: card('4000000000009995'),
      })
      .catch((e: unknown) => e)
    expect(declined).toBeInstanceOf(AmparoError)
    expect(declined).toMatchObject({ status: 402, code: 'card_declined', declineCode: 'insufficient_funds' })
  })

  it('contracts an annual plan, notifies its payment, and cancels it in two steps', async () => {
    const model = await galaxyS25(amparo)
    const { data: plan } = await amparo.POST('/annual-plans', {
      body: {
        model_id: model.id,
        customer_document: '52998224725',
        imei: uniqueImei(),
        used: false,
        payment: { method: 'credit_card', installments: 3 },
      },
    })
    expect(plan).toMatchObject({ status: 'awaiting_payment', policy_number: null })
    const path = { id: plan.id }
    const { data: paid } = await amparo.POST('/annual-plans/{id}/notify-payment', { params: { path } })
    expect(paid.status).toBe('paid')
    expect(paid.policy_number).toMatch(/^AMP-/)

    const request = () =>
      amparo.PUT('/annual-plans/{id}/cancellation', {
        params: { path },
        body: { reason: 'Cliente desistiu' },
      })
    const { data: requested } = await request()
    expect(requested).toMatchObject({ status: 'requested' })
    expect((await request()).data.protocol).toBe(requested.protocol)

    const { data: canceled } = await amparo.POST('/annual-plans/{id}/cancellation/{protocol}', {
      params: { path: { id: plan.id, protocol: requested.protocol } },
    })
    expect(canceled.status).toBe('canceled')
    expect(canceled.cancellation?.refund_amount).toBe(plan.premium)
  })

  it('registers a shopkeeper, which the list then shows', async () => {
    const { data, response } = await amparo.POST('/shopkeepers', {
      body: {
        trading_name: 'Loja Paulista',
        registration_number: '11.444.777/0001-61',
        phone: '1133334444',
        address: {
          zip_code: '01310100',
          street: 'Avenida Paulista',
          number: '1000',
          neighborhood: 'Bela Vista',
          city: 'São Paulo',
          state: 'SP',
        },
        responsible: {
          name: 'Maria da Silva',
          email: 'gerente@lojapaulista.example.com',
          phone: '11987654321',
          registration_number: '529.982.247-25',
          role: 'Gerente',
          rg: '12.345.678-9',
        },
        bank: { name: 'Banco', agency: '0001', account: '12345', account_digit: '6' },
      },
    })
    expect(response.status).toBe(201)
    expect(data).toMatchObject({ trading_name: 'Loja Paulista', matrix: false, responsible: null })
    const list = await amparo.GET('/shopkeepers', { params: { query: { per_page: 100 } } })
    expect(list.data.data.map((s) => s.id)).toContain(data.id)
  })
})

describe('AmparoError from the service', () => {
  it('has the 404’s code and the response’s request id', async () => {
    const error = (await amparo
      .GET('/subscriptions/{subscriptionId}', { params: { path: { subscriptionId: 999_999 } } })
      .catch((e: unknown) => e)) as AmparoError
    expect(error).toBeInstanceOf(AmparoError)
    expect(error).toMatchObject({ status: 404, code: 'not_found', errors: {} })
    expect(error.requestId).toBeTruthy()
    expect(error.requestId).toBe(error.response?.headers.get('x-request-id'))
  })

  it('has the 422’s field errors, and the codes of a wrong state and a wrong gateway', async () => {
    await expect(
      amparo.POST('/customers', { body: { ...MARIA, document: '529.982.247-26' } }),
    ).rejects.toMatchObject({
      status: 422,
      code: 'validation_failed',
      errors: { document: [expect.any(String)] },
    })
    const model = await galaxyS25(amparo)
    const plan = await firstPlan(amparo)
    const { data: subscription } = await amparo.POST('/subscriptions', {
      body: { plan_id: plan.id, customer_document: '52998224725', model_id: model.id },
    })
    await expect(
      amparo.POST('/subscriptions/{subscriptionId}/payment', {
        params: { path: { subscriptionId: subscription.id } },
        body: { creditCard: { number: '4111111111111111', expiry: '1230', cvv: '123' } },
      }),
    ).rejects.toMatchObject({ status: 422, code: 'wrong_gateway', errors: { gateway: [expect.any(String)] } })
  })
})

describe('idempotency through the client', () => {
  const contract = async (headers?: { 'Idempotency-Key': string }) => {
    const model = await galaxyS25(amparo)
    const plan = await firstPlan(amparo)
    return amparo.POST('/subscriptions', {
      params: { header: headers },
      body: { plan_id: plan.id, customer_document: '52998224725', model_id: model.id },
    })
  }

  it('sends a fresh key with each POST: the same body twice makes two subscriptions', async () => {
    const first = await contract()
    const second = await contract()
    expect(second.data.id).not.toBe(first.data.id)
    const keys = sent.filter((r) => r.path === '/subscriptions').map((r) => r.headers.get('idempotency-key'))
    const [a, b] = keys.slice(-2)
    expect(a).toMatch(/^[0-9a-f-]{36}$/)
    expect(b).toMatch(/^[0-9a-f-]{36}$/)
    expect(a).not.toBe(b)
  })

  it('keeps the caller’s key: the same key twice gets the first answer back', async () => {
    const key = { 'Idempotency-Key': `flow-${Date.now()}` }
    const first = await contract(key)
    const replay = await contract(key)
    expect(replay.data.id).toBe(first.data.id)
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true')
  })
})

describe('a token that expires', () => {
  it('is replaced by a new login, once, and the call goes through', async () => {
    await amparo.GET('/plans')
    const logins = () => sent.filter((r) => r.path === '/auth/login').length
    const before = logins()
    offsetMs += 2 * 3600 * 1000 // past AMPARO_TOKEN_TTL (1 h)
    const { data } = await amparo.GET('/plans')
    expect(data.length).toBeGreaterThan(0)
    expect(logins()).toBe(before + 1)
    const plans = sent.filter((r) => r.path === '/plans').slice(-2)
    expect(plans.map((r) => r.headers.get('authorization'))).toHaveLength(2)
    expect(plans[0]?.headers.get('authorization')).not.toBe(plans[1]?.headers.get('authorization'))
  })
})
