import { describe, expect, it } from 'vitest'
import {
  annualBody,
  customerBody,
  type Json,
  type Party,
  snapshot,
  subscriptionBody,
  useSecurityWorld,
  withField,
} from '../helpers/world/security.js'

// OWASP API1:2023 (broken object-level authorization): partner B naming A's objects in bodies and
// queries, and every list scoped to its caller.

const w = useSecurityWorld()

type BodyCase = [string, string, (a: Party, body: Json) => Json]
const REFERENCES: BodyCase[] = [
  [
    'A’s plan_id',
    'plan_id',
    (a, b) => withField(b, 'plan_id', b.imei ? a.annualPlanId : a.subscriptionPlanId),
  ],
  [
    'A’s customer_id',
    'customer_id',
    (a, b) => ({ ...withField(b, 'customer_document', undefined), customer_id: a.customer.id }),
  ],
  [
    'A’s customer_document',
    'customer_document',
    (a, b) => ({ ...withField(b, 'customer_id', undefined), customer_document: a.customer.document }),
  ],
  ['A’s exclusive model_id', 'model_id', (a, b) => withField(b, 'model_id', a.exclusive.modelId)],
  ['A’s branch store_id', 'store_id', (a, b) => withField(b, 'store_id', a.storeId)],
  ['A’s matrix store_id', 'store_id', (a, b) => withField(b, 'store_id', a.matrixStoreId)],
]
const CONTRACTS: [string, (p: Party) => Json][] = [
  ['/subscriptions', subscriptionBody],
  ['/annual-plans', annualBody],
]

describe('B’s contracts naming A’s objects in the body', () => {
  for (const [url, body] of CONTRACTS) {
    it.each(REFERENCES)(`POST ${url} with %s → 422 under %s, nothing stored`, async (_n, key, mutate) => {
      const before = await snapshot(w.db)
      const response = await w.call('POST', url, w.b.external.token, mutate(w.a.external, body(w.b.external)))
      expect(response.statusCode, response.body).toBe(422)
      expect(Object.keys(response.json().errors)).toEqual([key])
      expect(await snapshot(w.db)).toEqual(before)
    })

    it(`POST ${url} with B’s own references → 201 (control)`, async () => {
      const response = await w.call('POST', url, w.b.external.token, body(w.b.external))
      expect(response.statusCode, response.body).toBe(201)
    })
  }

  it.each<[string, (a: Party, b: Party) => string, string]>([
    ['GET /quotation', (a) => `/quotation?model_id=${a.exclusive.modelId}`, 'model_id'],
    [
      'GET /plans/{id}/quotation',
      (a, b) => `/plans/${b.subscriptionPlanId}/quotation?model_id=${a.exclusive.modelId}`,
      'model_id',
    ],
    [
      'GET /annual-plans/quote (model)',
      (a) => `/annual-plans/quote?model_id=${a.exclusive.modelId}`,
      'model_id',
    ],
    [
      'GET /annual-plans/quote (plan)',
      (a) => `/annual-plans/quote?model_id=${a.modelId}&plan_id=${a.annualPlanId}`,
      'plan_id',
    ],
  ])('%s with A’s %s → 422', async (_n, url, key) => {
    const response = await w.call('GET', url(w.a.external, w.b.external), w.b.external.token)
    expect(response.statusCode, response.body).toBe(422)
    expect(Object.keys(response.json().errors)).toEqual([key])
  })
})

describe('lists never show the other partner’s rows', () => {
  const owned = async (
    table: 'shopkeepers' | 'subscriptions' | 'annual_plans' | 'plans',
    partnerId: number,
  ) =>
    (await w.db.selectFrom(table).select('id').where('partner_id', '=', partnerId).execute()).map((r) => r.id)

  it.each([
    ['/shopkeepers', 'shopkeepers'],
    ['/subscriptions', 'subscriptions'],
    ['/annual-plans', 'annual_plans'],
  ] as const)('GET %s: only the caller’s rows, and a total that counts only them', async (url, table) => {
    for (const me of [w.a.external, w.b.own]) {
      const mine = await owned(table, me.partnerId)
      const page = await w.ok('GET', `${url}?per_page=100`, me.token)
      const ids = (page.data as { id: number }[]).map((r) => r.id)
      expect(ids.length).toBeGreaterThan(0)
      expect(ids.every((id) => mine.includes(id))).toBe(true)
      expect((page.meta as Json).total).toBe(mine.length)
    }
  })

  it('GET /plans: only the caller’s subscription plans', async () => {
    const mine = await owned('plans', w.a.external.partnerId)
    const plans = (await w.ok('GET', '/plans', w.a.external.token)) as unknown as { id: number }[]
    expect(plans.map((p) => p.id)).toEqual([w.a.external.subscriptionPlanId])
    expect(plans.every((p) => mine.includes(p.id))).toBe(true)
  })

  it('GET /brands and /models: the other side’s exclusive brand and model never appear', async () => {
    const [a, b] = [w.a.external, w.b.external]
    const brands = ((await w.ok('GET', '/brands?per_page=100', a.token)).data as { id: number }[]).map(
      (x) => x.id,
    )
    expect(brands).toContain(a.exclusive.brandId)
    expect(brands).not.toContain(b.exclusive.brandId)
    const models = ((await w.ok('GET', '/models?per_page=100', a.token)).data as { id: number }[]).map(
      (x) => x.id,
    )
    expect(models).toContain(a.exclusive.modelId)
    expect(models).not.toContain(b.exclusive.modelId)
    for (const query of [
      `brand_id=${b.exclusive.brandId}`,
      `filter[brand]=${b.exclusive.brandId}`,
      'filter[name]=Exclusivo B',
    ]) {
      const page = await w.ok('GET', `/models?${query}`, a.token)
      expect(page.data, query).toEqual([])
      expect((page.meta as Json).total).toBe(0)
    }
  })

  it.each(['/subscriptions', '/annual-plans'])(
    'GET %s?filter[customer_document]=A’s document → empty for B',
    async (url) => {
      const page = await w.ok(
        'GET',
        `${url}?filter[customer_document]=${w.a.external.customer.document}`,
        w.b.external.token,
      )
      expect(page.data).toEqual([])
      expect((page.meta as Json).total).toBe(0)
    },
  )
})

describe('other channels', () => {
  it('B registering A’s customer document gets its own customer, not a hint that A has one', async () => {
    const body = { ...customerBody(), document: w.a.external.customer.document }
    const response = await w.call('POST', '/customers', w.b.external.token, body)
    expect(response.statusCode, response.body).toBe(201)
    expect(response.json().id).not.toBe(w.a.external.customer.id)
  })

  it('an Idempotency-Key used by A is never replayed to B', async () => {
    const body = customerBody()
    const headers = { 'idempotency-key': 'shared-key-1' }
    const first = await w.call('POST', '/customers', w.a.external.token, body, headers)
    expect(first.statusCode, first.body).toBe(201)
    const second = await w.call('POST', '/customers', w.b.external.token, body, headers)
    expect(second.statusCode, second.body).toBe(201)
    expect(second.headers['idempotent-replayed']).toBeUndefined()
    const row = await w.db
      .selectFrom('customers')
      .select('partner_id')
      .where('id', '=', second.json().id)
      .executeTakeFirstOrThrow()
    expect(row.partner_id).toBe(w.b.external.partnerId)
    expect(second.json().id).not.toBe(first.json().id)
  })
})
