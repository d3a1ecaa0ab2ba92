import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectedError } from '../helpers/errors.js'
import { type OpenApiDocument, ResponseChecker } from '../helpers/openapi-responses.js'
import { runs } from '../helpers/runs.js'
import { createTestApp, type TestContext } from '../helpers/test-app.js'
import {
  ANNUAL,
  bearer,
  ESSENCIAL_24X,
  partnerWithToken,
  seedCatalog,
  seedPlans,
  seedUser,
  type TestPartner,
  TOTAL_12X,
} from '../helpers/world.js'
import {
  type Caller,
  cardExpiry,
  cardNumber,
  cnpj,
  cpf,
  type FuzzRequest,
  type Hints,
  imei,
  type JsonSchema,
  type OperationSpec,
  type Parameter,
  requestArbitrary,
} from './arbitraries.js'

/**
 * Property-based fuzzing from the OpenAPI document: for every operation, valid and invalid
 * requests generated from its parameter and body schemas, sent with `app.inject` against a seeded
 * world. Properties: never a 5xx, and every response matches the schema documented for its
 * status (checked by the `createTestApp` wrapper on every `inject`).
 *
 * FUZZ_RUNS runs per operation (default 200 with AMPARO_TEST_RUNS=full, as in CI, else a tenth:
 * see test/helpers/runs.ts), FUZZ_SEED (default below) the seed; a failure
 * prints both. Operations run in document order against one database, so to replay a failure
 * run the whole file with the printed seed.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? runs(200))
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_121)
const STATS = process.env.FUZZ_STATS === '1'
if (!Number.isInteger(RUNS) || RUNS < 1 || !Number.isInteger(SEED)) {
  throw new Error(`FUZZ_RUNS must be a positive integer and FUZZ_SEED an integer (${RUNS}, ${SEED})`)
}

/** fc.assert with the seed and run count; a failure says how to replay it. */
async function check<T>(name: string, property: fc.IAsyncProperty<T>) {
  try {
    await fc.assert(property, { seed: SEED, numRuns: RUNS })
  } catch (error) {
    // fast-check keeps the property's own error as the cause: show both.
    const { message, cause } = error as Error & { cause?: unknown }
    const reason = cause instanceof Error ? cause.message : String(cause ?? '')
    throw new Error(`${name}: reproduce with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}\n${reason}\n${message}`)
  }
}

// Not useTestApp: the app is built at collection time, since the operations fuzzed are read from its document.
// The world's clock is the real one: plans, installments and coverage dates move with it.
const ctx: TestContext = await createTestApp({
  env: { AMPARO_RATE_LIMIT: '1000000', AMPARO_LOGIN_RATE_LIMIT: '100000' },
})
await ctx.app.ready()
const document = ctx.app.swagger() as OpenApiDocument & {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[]
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
        security?: unknown[]
      }
    >
  >
}
const operations: OperationSpec[] = Object.entries(document.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({
    method,
    path,
    parameters: op.parameters ?? [],
    body: op.requestBody?.content?.['application/json']?.schema,
    open: op.security?.length === 0,
  })),
)

let world: { callers: Caller[] }
const stats = new Map<string, Map<string, number>>()
/** With FUZZ_STATS=1, why requests were refused: status and first error key, per operation. */
const reasons = new Map<string, number>()
const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)

beforeAll(async () => {
  world = await seedWorld()
}, 120_000)
afterAll(async () => {
  if (STATS) {
    for (const [operation, counts] of stats) {
      const line = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}×${n}`)
      console.log(`${operation.padEnd(72)} ${line.join(' ')}`)
    }
    const top = [...reasons].sort(([a], [b]) => a.localeCompare(b)).filter(([, n]) => n >= 5)
    for (const [reason, n] of top) console.log(`${String(n).padStart(5)} ${reason}`)
  }
  await ctx.close()
})

async function send(request: FuzzRequest) {
  // The createTestApp wrapper throws when the response does not match the document.
  const response = await ctx.app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    ...(request.payload !== undefined && { payload: request.payload }),
  })
  return response
}

describe('OpenAPI fuzzing', () => {
  it('covers every documented operation', () => {
    expect(operations.length).toBeGreaterThan(20)
  })

  describe.each(operations.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))(
    '%s',
    (name, op) => {
      it(`never answers 5xx, and answers as documented (${RUNS} runs)`, { timeout: 300_000 }, async () => {
        const counts = new Map<string, number>()
        stats.set(name, counts)
        const property = fc.asyncProperty(requestArbitrary(op, world.callers), async (request) => {
          const response = await send(request)
          count(counts, `${response.statusCode}`)
          if (STATS && response.statusCode >= 400) {
            const body = response.json() as { message?: string; errors?: Record<string, unknown> }
            const key = Object.keys(body.errors ?? {})[0] ?? body.message?.slice(0, 40)
            count(reasons, `${name} ${response.statusCode} ${key}`)
          }
          if (response.statusCode >= 500) {
            throw new Error(`${request.method} ${request.url} → ${response.statusCode}: ${response.body}`)
          }
        })
        await check(name, property)
      })
    },
  )
})

describe('methods and paths the app does not serve', () => {
  it(`answer 404, never 5xx (${RUNS} runs)`, { timeout: 300_000 }, async () => {
    const served = new Set(operations.map((op) => `${op.method.toUpperCase()} ${op.path}`))
    const counts = new Map<string, number>()
    stats.set('other methods and paths', counts)
    const segment = fc.oneof(
      fc.constantFrom('1', 'x', '%20', '..', '%2F', 'quote', 'cancellation', 'payment'),
      fc.string({ maxLength: 8, unit: 'grapheme-ascii' }).map(encodeURIComponent),
    )
    const request = fc
      .tuple(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
        fc.oneof(
          // A documented path, its parameters filled in, with a method it may not have.
          fc
            .tuple(fc.constantFrom(...operations.map((op) => op.path)), segment)
            .map(([path, value]) => [path, path.replace(/\{[^}]+\}/g, value)] as const),
          // Anything else.
          fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => [null, `/${s.join('/')}`] as const),
        ),
        fc.constantFrom(...world.callers.map((c) => c.authorization), undefined),
        fc.option(fc.constantFrom('{}', '{bad', '[]')),
      )
      .filter(([method, [path]]) => path === null || !served.has(`${method} ${path}`))
    await check(
      'other methods and paths',
      fc.asyncProperty(request, async ([method, [, url], authorization, payload]) => {
        const response = await ctx.app.inject({
          method: method as 'GET',
          url,
          headers: {
            ...(authorization && { authorization }),
            ...(payload !== null && { 'content-type': 'application/json' }),
          },
          ...(payload !== null && { payload }),
        })
        count(counts, `${response.statusCode}`)
        // The wrapper has checked it against the document: 404 is the only undocumented answer.
        if (response.statusCode >= 500)
          throw new Error(`${method} ${url} → ${response.statusCode}: ${response.body}`)
      }),
    )
  })
})

// Each of these answered a 5xx or an undocumented status before it was fixed in src/.
describe('found by fuzzing', () => {
  const auth = () => ({ authorization: world.callers[0]?.authorization ?? '' })

  it('a path the router cannot decode, or an overlong parameter, answers 404 {code, message, request_id}', async () => {
    for (const url of [
      '/brands/%',
      '/subscriptions/%zz/installments',
      `/plans/${'9'.repeat(300)}/quotation`,
    ]) {
      const response = await ctx.app.inject({ method: 'GET', url, headers: auth() })
      expect(response.statusCode, url).toBe(404)
      expect(response.json(), url).toEqual(
        expectedError(response, 'not_found', { message: expect.any(String) }),
      )
      expect(response.headers['x-request-id'], url).toBeTruthy()
      expect(response.headers['cache-control'], url).toBe('no-store')
    }
  })

  it('a body sent to no route answers 404, whatever the body', async () => {
    for (const [payload, type] of [
      ['{bad', 'application/json'],
      ['{}', 'text/plain'],
    ]) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/no/such/route',
        headers: { 'content-type': type },
        payload,
      })
      expect(response.statusCode, `${type} ${payload}`).toBe(404)
    }
  })

  it('an Idempotency-Key with a deeply nested body does not overflow the stack: the depth limit refuses it first', async () => {
    const deep = `{"reason":"x","a":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/subscriptions/999999/cancellation',
      headers: { ...auth(), 'content-type': 'application/json', 'idempotency-key': 'deep-body' },
      payload: deep,
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().code).toBe('invalid_json')
  })

  it('documents 400, 413, 415 and 422 on every POST and PUT, body-less ones included', async () => {
    // The wrapper fails these calls if the status is not documented for the route.
    const notify = await ctx.app.inject({
      method: 'POST',
      url: '/annual-plans/999999/notify-payment',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: '{bad',
    })
    expect(notify.statusCode).toBe(400)
    const confirm = (body: object) =>
      ctx.app.inject({
        method: 'POST',
        url: '/annual-plans/999999/cancellation/XYZ',
        headers: { ...auth(), 'idempotency-key': 'reused-key' },
        payload: body,
      })
    expect((await confirm({})).statusCode).toBe(404)
    expect((await confirm({ other: 1 })).statusCode).toBe(422)
    const paths = Object.entries(document.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([method]) => method === 'post' || method === 'put')
        .map(([method, op]) => ({ where: `${method} ${path}`, statuses: Object.keys(op.responses ?? {}) })),
    )
    for (const { where, statuses } of paths) {
      for (const status of ['400', '413', '415', '422']) expect(statuses, where).toContain(status)
    }
  })
})

describe('the response checker', () => {
  const checker = () => new ResponseChecker(document)
  const error = (code: string) => ({ code, message: 'x', request_id: 'r-1' })

  it('accepts a documented status with a matching body', () => {
    expect(() => checker().checkResponse('GET', '/brands/:brandId', 404, error('not_found'))).not.toThrow()
  })

  it('refuses a code the operation does not list for the status', () => {
    expect(() => checker().checkResponse('GET', '/brands/:brandId', 404, error('server_error'))).toThrow(
      /does not match/,
    )
    expect(() =>
      checker().checkResponse('POST', '/customers', 422, { ...error('invalid_state'), errors: {} }),
    ).toThrow(/does not match/)
  })

  it('refuses a body that does not match the schema of its status', () => {
    expect(() => checker().checkResponse('GET', '/plans', 200, { data: 'x' })).toThrow(/does not match/)
    expect(() => checker().checkResponse('GET', '/brands/{brandId}', 404, { error: 'x' })).toThrow(
      /does not match/,
    )
    expect(() => checker().checkResponse('GET', '/health', 200, 'not json')).toThrow(/not JSON/)
  })

  it('refuses a status the operation does not document', () => {
    expect(() =>
      checker().checkResponse('GET', '/plans', 422, { message: 'x', errors: { a: ['x'] } }),
    ).toThrow(/not documented/)
    expect(() => checker().checkResponse('GET', null, 400, { message: 'x' })).toThrow(/not documented/)
  })

  it('allows 404 on an unmatched route and 429 or 503 anywhere, with the Error body', () => {
    expect(() => checker().checkResponse('GET', null, 404, error('not_found'))).not.toThrow()
    expect(() => checker().checkResponse('GET', '/plans', 429, error('rate_limited'))).not.toThrow()
    expect(() =>
      checker().checkResponse('POST', '/customers', 503, error('service_unavailable')),
    ).not.toThrow()
    expect(() => checker().checkResponse('GET', null, 404, { message: 'x' })).toThrow(/does not match/)
    expect(() => checker().checkResponse('GET', '/plans', 429, {})).toThrow(/does not match/)
  })

  it('finds the route of a request as the router does: static segments first', () => {
    const routes = checker().routes
    expect(routes.match('GET', '/annual-plans/quote?model_id=1')?.path).toBe('/annual-plans/quote')
    expect(routes.match('GET', '/annual-plans/12')?.path).toBe('/annual-plans/{id}')
    expect(routes.match('GET', '/customers/12.ABC.345%2F01DE-35')?.path).toBe('/customers/{document}')
    expect(routes.match('DELETE', '/customers')).toBeNull()
    expect(routes.match('GET', '/brands/')?.path).toBe('/brands')
    expect(routes.match('HEAD', '/brands/7')?.path).toBe('/brands/{brandId}')
    expect(routes.match('GET', '/brands/1/x')).toBeNull()
  })

  it('fails the inject call whose response breaks the document', async () => {
    const test = await createTestApp()
    // A documented route that answers a status it does not document.
    test.app.get(
      '/test/liar',
      {
        schema: {
          summary: 'x',
          response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } },
        },
      },
      async (_request, reply) => reply.code(418 as 200).send({ ok: true }),
    )
    try {
      await expect(test.app.inject({ method: 'GET', url: '/test/liar' })).rejects.toThrow(
        /GET \/test\/liar → 418: status 418 is not documented/,
      )
      const fine = await test.app.inject({ method: 'GET', url: '/health' })
      expect(fine.statusCode).toBe(200)
    } finally {
      await test.close()
    }
  })
})

// ---------------------------------------------------------------------------------------------
// The seeded world: two partners (external and own gateway), each with plans, customers, stores,
// subscriptions (pending, paid, canceled) and annual plans (awaiting payment, paid, in
// cancellation), whose ids and documents feed the generators: a caller uses its own ids most of
// the time and the other partner's now and then.

const SEEDED_AT = new Date().toISOString()
const USER = { email: 'fuzz.user@example.com', password: 'fuzz-password-123' }

async function call(method: 'GET' | 'POST' | 'PUT', url: string, token: string, payload?: object) {
  const response = await ctx.app.inject({
    method,
    url,
    headers: bearer(token),
    ...(payload && { payload }),
  })
  if (response.statusCode >= 300) {
    throw new Error(`seeding ${method} ${url}: ${response.statusCode} ${response.body}`)
  }
  return response.json()
}

interface Holdings {
  partner: TestPartner
  token: string
  models: number[]
  subscriptionPlans: number[]
  annualPlans: number[]
  customers: number[]
  documents: string[]
  stores: number[]
  subscriptions: number[]
  installments: number[]
  /** [subscription id, installment id] pairs. */
  installmentsOf: [number, number][]
  annualPlanIds: number[]
  protocols: string[]
}

const sample = <T>(arbitrary: fc.Arbitrary<T>, offset: number): T =>
  fc.sample(arbitrary, { seed: SEED + offset, numRuns: 1 })[0] as T

async function seedPartnerWorld(
  { partner, token }: { partner: TestPartner; token: string },
  index: number,
): Promise<Holdings> {
  const plans = await seedPlans(ctx.db, partner.id, [TOTAL_12X, ESSENCIAL_24X, ANNUAL], SEEDED_AT)
  const own = index === 1
  const models = (await call('GET', '/models?per_page=100', token)).data.map((m: { id: number }) => m.id)
  const stores: number[] = (await call('GET', '/shopkeepers', token)).data.map((s: { id: number }) => s.id)
  const branch = await call('POST', '/shopkeepers', token, {
    trading_name: `Loja ${index}`,
    registration_number: sample(cnpj, 100 + index),
    phone: '(11) 3333-4444',
    address: {
      zip_code: '01310-100',
      street: 'Avenida Paulista',
      number: '1000',
      neighborhood: 'Bela Vista',
      city: 'São Paulo',
      state: 'SP',
    },
    responsible: {
      name: 'Maria',
      email: `gerente${index}@loja.example.com`,
      phone: '(11) 98765-4321',
      registration_number: sample(cpf, 200 + index),
    },
    bank: { name: 'Banco', agency: '1234', account: '56789', account_digit: '0' },
  })
  stores.push(branch.id)

  // The same documents for both partners (customers are per partner), and one of each's own.
  const documents = ['529.982.247-25', '11.222.333/0001-81', '12.ABC.345/01DE-35', sample(cpf, 300 + index)]
  const customers: number[] = []
  for (const [i, document] of documents.entries()) {
    const customer = await call('POST', '/customers', token, {
      name: `Cliente ${i}`,
      document,
      email: `cliente${i}@example.com`,
      phone: '(11) 98765-4321',
      ...(i % 2 === 0 && {
        address: {
          street: 'Rua A',
          number: 10 + i,
          zipcode: '01310-100',
          neighborhood: 'Centro',
          city: 'São Paulo',
          state: 'sp',
        },
      }),
    })
    customers.push(customer.id)
  }

  const subscriptionPlans = plans.filter((p) => p.kind === 'subscription').map((p) => p.id)
  const subscriptions: number[] = []
  const installments: number[] = []
  const installmentsOf: [number, number][] = []
  for (let i = 0; i < 6; i++) {
    const subscription = await call('POST', '/subscriptions', token, {
      plan_id: subscriptionPlans[i % subscriptionPlans.length],
      customer_id: customers[i % customers.length],
      model_id: models[i % models.length],
      serial_number: sample(imei, 400 + 10 * index + i),
      store_id: stores[i % stores.length],
    })
    subscriptions.push(subscription.id)
    const list = (await call('GET', `/subscriptions/${subscription.id}/installments`, token)) as {
      id: number
    }[]
    installments.push(...list.map((x) => x.id))
    installmentsOf.push(...list.map((x): [number, number] => [subscription.id, x.id]))
    // The first paid, the last canceled, the others pending.
    if (i === 0) {
      if (own) {
        await call('POST', `/subscriptions/${subscription.id}/payment`, token, {
          creditCard: { number: '4111111111111111', expiry: '12/30', cvv: '123', holder: 'MARIA' },
        })
      } else {
        await call(
          'POST',
          `/subscriptions/${subscription.id}/installments/${list[0]?.id}/notify-payment`,
          token,
        )
      }
    }
    if (i === 5)
      await call('POST', `/subscriptions/${subscription.id}/cancellation`, token, { reason: 'Desistiu' })
  }

  const annualPlanIds: number[] = []
  const protocols: string[] = []
  for (let i = 0; i < 6; i++) {
    const plan = await call('POST', '/annual-plans', token, {
      model_id: models[i % models.length],
      customer_id: customers[i % customers.length],
      imei: sample(imei, 500 + 10 * index + i),
      payment: { method: 'pix' },
    })
    annualPlanIds.push(plan.id)
    // The first two paid, the first of them in cancellation; the others awaiting payment.
    if (i >= 2) continue
    if (own) {
      await call('POST', `/annual-plans/${plan.id}/payment`, token, {
        card_number: '4111111111111111',
        card_expiry: '12/30',
        card_cvv: '123',
      })
    } else {
      await call('POST', `/annual-plans/${plan.id}/notify-payment`, token)
    }
    if (i === 0) {
      const cancellation = await call('PUT', `/annual-plans/${plan.id}/cancellation`, token, {
        reason: 'Desistiu',
      })
      protocols.push(cancellation.protocol, cancellation.protocol.toLowerCase())
    }
  }
  return {
    partner,
    token,
    models,
    subscriptionPlans,
    annualPlans: plans.filter((p) => p.kind === 'annual').map((p) => p.id),
    customers,
    documents,
    stores,
    subscriptions,
    installments,
    installmentsOf,
    annualPlanIds,
    protocols,
  }
}

/** Mostly `mine`, sometimes `theirs` (another partner's: 404 or 422 expected). */
function mix<T>(mine: T[], theirs: T[]): fc.Arbitrary<T> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...mine) },
    { weight: 1, arbitrary: fc.constantFrom(...theirs) },
  )
}

function hintsOf(me: Holdings, other: Holdings, brands: number[]) {
  const ids = (pick: (h: Holdings) => number[]) => mix(pick(me), pick(other))
  const holder = fc.constantFrom('MARIA DA SILVA', 'João Souza', 'A')
  const cvv = fc.constantFrom('123', '1234', '000')
  const common: Hints = {
    brandId: fc.constantFrom(...brands),
    brand_id: fc.constantFrom(...brands),
    'filter[brand]': fc.constantFrom(...brands),
    modelId: ids((h) => h.models),
    model_id: ids((h) => h.models),
    customer_id: ids((h) => h.customers),
    customer_document: mix(me.documents, other.documents),
    'filter[customer_document]': mix(me.documents, other.documents),
    document: fc.oneof({ weight: 4, arbitrary: mix(me.documents, other.documents) }, cpf, cnpj),
    store_id: ids((h) => h.stores),
    shopkeeperId: ids((h) => h.stores),
    subscriptionId: ids((h) => h.subscriptions),
    installmentId: ids((h) => h.installments),
    id: ids((h) => h.annualPlanIds),
    protocol: mix(me.protocols, other.protocols),
    card_number: cardNumber,
    'creditCard.number': cardNumber,
    card_expiry: cardExpiry,
    'creditCard.expiry': cardExpiry,
    card_cvv: cvv,
    'creditCard.cvv': cvv,
    card_holder: holder,
    'creditCard.holder': holder,
    serial_number: imei,
    second_serial_number: imei,
    imei,
    imei_2: imei,
    maxima: fc.constantFrom(4500, 8999, 6543.21, 1000, 299, 4999.9),
    page: fc.integer({ min: 1, max: 4 }),
    per_page: fc.integer({ min: 1, max: 100 }),
  }
  return (op: OperationSpec): Hints => {
    // Plans by kind: subscription plans where subscriptions are priced or sold, annual ones elsewhere.
    const annual = op.path.startsWith('/annual-plans')
    const plans = ids((h) => (annual ? h.annualPlans : h.subscriptionPlans))
    const hints: Hints = { ...common, planId: plans, plan_id: plans }
    if (op.path.includes('{installmentId}')) {
      hints[':path'] = fc.constantFrom(...me.installmentsOf).map(([subscriptionId, installmentId]) => ({
        subscriptionId,
        installmentId,
      }))
    }
    if (op.path === '/auth/login') {
      hints[''] = fc.constantFrom(
        { client_id: me.partner.clientId, client_secret: me.partner.clientSecret },
        { client_id: me.partner.clientId, client_secret: other.partner.clientSecret },
        USER,
        { email: USER.email.toUpperCase(), password: USER.password },
      )
      hints[':credentials'] = fc.constantFrom(
        `${me.partner.clientId}:${me.partner.clientSecret}`,
        `${me.partner.clientId}:${other.partner.clientSecret}`,
      )
    }
    return hints
  }
}

async function seedWorld(): Promise<{ callers: Caller[] }> {
  await seedCatalog(ctx.db)
  const externalPartner = await partnerWithToken(ctx.app, ctx.db, 'external')
  const ownPartner = await partnerWithToken(ctx.app, ctx.db, 'own')
  await seedUser(ctx.db, externalPartner.partner.id, USER.email, USER.password)
  const external = await seedPartnerWorld(externalPartner, 0)
  const own = await seedPartnerWorld(ownPartner, 1)
  const brands = (await ctx.db.selectFrom('brands').select('id').execute()).map((b) => b.id)
  const userToken = (await call('POST', '/auth/login', external.token, USER)).token as string
  return {
    callers: [
      { authorization: bearer(external.token).authorization, hints: hintsOf(external, own, brands) },
      { authorization: bearer(userToken).authorization, hints: hintsOf(external, own, brands) },
      { authorization: bearer(own.token).authorization, hints: hintsOf(own, external, brands) },
      { authorization: bearer(own.token).authorization, hints: hintsOf(own, external, brands) },
    ],
  }
}
