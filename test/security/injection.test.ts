import { describe, expect, it } from 'vitest'
import { requestIdOf } from '../helpers/errors.js'
import {
  annualCard,
  customerBody,
  expectHandled,
  type Json,
  type Method,
  type Party,
  shopkeeperBody,
  snapshot,
  subscriptionBody,
  useSecurityWorld,
} from '../helpers/world/security.js'

// OWASP API8:2023 (security misconfiguration) and API10 (unsafe consumption of input): SQL
// metacharacters and Unicode oddities anywhere a client can put text never make a server fault.

const w = useSecurityWorld()

const NUL = '\u0000'
const NASTY: [string, string][] = [
  ['SQL tautology', "' OR 1=1 --"],
  ['SQL statement', '"; drop table x; --'],
  ['SQL sleep', "1' AND pg_sleep(5) IS NULL --"],
  ['percent', '%'],
  ['underscore', '_'],
  ['backslash', '\\'],
  ['NUL', NUL],
  ['embedded NUL', `abc${NUL}def`],
  ['RTL override', '\u202Egpj.exe'],
  ['emoji', '📱😀👨‍👩‍👧'],
  ['combining marks', `e${'\u0301'.repeat(50)}`],
  ['overlong', 'Ω'.repeat(5000)],
  ['dot-dot-slash', '../../etc/passwd'],
  ['encoded dot-dot-slash', '%2e%2e%2f'],
  ['JSON operator', '{"$gt":""}'],
  ['HTML', '<script>alert(1)</script>'],
  ['BOM and zero-width', '\uFEFF\u200B'],
]
/** Half a surrogate pair, as JSON can escape it: no character, refused in bodies (not URL-encodable). */
const UNPAIRED: [string, string][] = [
  ['lone high surrogate', 'A\ud800B'],
  ['lone low surrogate', '\udc00'],
  ['reversed pair', '\udc00\ud800'],
]
/** Bidirectional controls: they reorder how the text around them shows ("Trojan Source"). */
const BIDI = [
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200E',
  '\u200F',
  '\u061C',
]
/** Sent as they are in the URL, undecoded. */
const RAW = ['%00', '..%2f..%2fetc%2fpasswd', '%2e%2e%2f', '%ED%A0%80', '%FF', '%zz', '%']

interface Get {
  name: string
  method?: Method
  url: (p: Party, x: string) => string
}
const id = (p: Party) => p.subscription.id
const GETS: Get[] = [
  { name: 'GET /brands?page', url: (_p, x) => `/brands?page=${x}` },
  { name: 'GET /brands?per_page', url: (_p, x) => `/brands?per_page=${x}` },
  { name: 'GET /brands/{brandId}', url: (_p, x) => `/brands/${x}` },
  { name: 'GET /brands/{id}?include', url: (p, x) => `/brands/${p.exclusive.brandId}?include=${x}` },
  { name: 'GET /models?filter[name]', url: (_p, x) => `/models?filter[name]=${x}` },
  { name: 'GET /models?filter[brand]', url: (_p, x) => `/models?filter[brand]=${x}` },
  { name: 'GET /models?brand_id', url: (_p, x) => `/models?brand_id=${x}` },
  { name: 'GET /models?include', url: (_p, x) => `/models?include=${x}` },
  { name: 'GET /models/{modelId}', url: (_p, x) => `/models/${x}` },
  { name: 'GET /models/{id}?include', url: (p, x) => `/models/${p.modelId}?include=${x}` },
  { name: 'GET /customers/{document}', url: (_p, x) => `/customers/${x}` },
  { name: 'GET /plans/{planId}/quotation', url: (p, x) => `/plans/${x}/quotation?model_id=${p.modelId}` },
  {
    name: 'GET /plans/{id}/quotation?maxima',
    url: (p, x) => `/plans/${p.subscriptionPlanId}/quotation?model_id=${p.modelId}&maxima=${x}`,
  },
  { name: 'GET /quotation?model_id', url: (_p, x) => `/quotation?model_id=${x}` },
  { name: 'GET /quotation?maxima', url: (p, x) => `/quotation?model_id=${p.modelId}&maxima=${x}` },
  { name: 'GET /annual-plans/quote?model_id', url: (_p, x) => `/annual-plans/quote?model_id=${x}` },
  {
    name: 'GET /annual-plans/quote?used',
    url: (p, x) => `/annual-plans/quote?model_id=${p.modelId}&used=${x}`,
  },
  {
    name: 'GET /annual-plans/quote?is_used',
    url: (p, x) => `/annual-plans/quote?model_id=${p.modelId}&is_used=${x}`,
  },
  {
    name: 'GET /annual-plans/quote?plan_id',
    url: (p, x) => `/annual-plans/quote?model_id=${p.modelId}&plan_id=${x}`,
  },
  {
    name: 'GET /annual-plans/quote?maxima',
    url: (p, x) => `/annual-plans/quote?model_id=${p.modelId}&maxima=${x}`,
  },
  { name: 'GET /shopkeepers?page', url: (_p, x) => `/shopkeepers?page=${x}` },
  { name: 'GET /shopkeepers/{shopkeeperId}', url: (_p, x) => `/shopkeepers/${x}` },
  { name: 'GET /subscriptions?filter[status]', url: (_p, x) => `/subscriptions?filter[status]=${x}` },
  {
    name: 'GET /subscriptions?filter[customer_document]',
    url: (_p, x) => `/subscriptions?filter[customer_document]=${x}`,
  },
  { name: 'GET /subscriptions/{subscriptionId}', url: (_p, x) => `/subscriptions/${x}` },
  { name: 'GET /subscriptions/{id}/installments', url: (_p, x) => `/subscriptions/${x}/installments` },
  { name: 'GET /annual-plans?filter[status]', url: (_p, x) => `/annual-plans?filter[status]=${x}` },
  {
    name: 'GET /annual-plans?filter[customer_document]',
    url: (_p, x) => `/annual-plans?filter[customer_document]=${x}`,
  },
  { name: 'GET /annual-plans/{id}', url: (_p, x) => `/annual-plans/${x}` },
  {
    name: 'POST notify-payment {installmentId}',
    method: 'POST',
    url: (p, x) => `/subscriptions/${id(p)}/installments/${x}/notify-payment`,
  },
  {
    name: 'POST /annual-plans/{id}/notify-payment',
    method: 'POST',
    url: (_p, x) => `/annual-plans/${x}/notify-payment`,
  },
  {
    name: 'POST cancellation/{protocol}',
    method: 'POST',
    url: (p, x) => `/annual-plans/${p.annual.id}/cancellation/${x}`,
  },
]

describe('filters and path parameters', () => {
  it.each(GETS.map((g) => [g.name, g] as const))(
    '%s: every nasty value → 2xx or 4xx, nothing changes',
    async (_n, g) => {
      const p = w.a.external
      const before = await snapshot(w.db)
      const values = [...NASTY.map(([name, v]) => [name, encodeURIComponent(v)]), ...RAW.map((v) => [v, v])]
      for (const [name, value] of values as [string, string][]) {
        const response = await w.call(g.method ?? 'GET', g.url(p, value), p.token)
        expectHandled(response, `${g.name} ${name}`)
        expect(response.headers['content-type'], name).toMatch(/^application\/json/)
        // Errors in the contract's shape only: no framework error code or status echo.
        if (response.statusCode >= 400) {
          expect(['code', 'message', 'errors', 'request_id']).toEqual(
            expect.arrayContaining(Object.keys(response.json())),
          )
          expect(response.json().request_id).toBe(requestIdOf(response))
        }
      }
      expect(await snapshot(w.db)).toEqual(before)
    },
  )

  it('LIKE wildcards and quotes in filter[name] match literally', async () => {
    const count = async (name: string) =>
      (
        (await w.ok('GET', `/models?filter[name]=${encodeURIComponent(name)}`, w.a.external.token))
          .meta as Json
      ).total
    expect(await count('galaxy')).toBeGreaterThan(0)
    for (const value of ['%', '_', '\\', "' OR 1=1 --", 'galaxy%', '%s25'])
      expect(await count(value), value).toBe(0)
  })

  it('NUL in a query filter or path id → 422 / 404, never a server fault', async () => {
    const { token } = w.a.external
    const filter = await w.call('GET', '/models?filter[name]=a%00b', token)
    expect(filter.statusCode, filter.body).toBe(422)
    expect(Object.keys(filter.json().errors)).toEqual(['filter[name]'])
    expect((await w.call('GET', '/customers/529%00', token)).statusCode).toBe(404)
  })
})

interface BodyField {
  name: string
  url: (p: Party) => string
  method?: Method
  body: (p: Party, x: string) => Json
  key: string
}
const FIELDS: BodyField[] = [
  {
    name: 'customer name',
    url: () => '/customers',
    body: (_p, x) => ({ ...customerBody(), name: x }),
    key: 'name',
  },
  {
    name: 'customer document',
    url: () => '/customers',
    body: (_p, x) => ({ ...customerBody(), document: x }),
    key: 'document',
  },
  {
    name: 'store trading_name',
    url: () => '/shopkeepers',
    body: (_p, x) => ({ ...shopkeeperBody(), trading_name: x }),
    key: 'trading_name',
  },
  {
    name: 'subscription serial_number',
    url: () => '/subscriptions',
    body: (p, x) => ({ ...subscriptionBody(p), serial_number: x }),
    key: 'serial_number',
  },
  {
    name: 'subscription metadata.origin',
    url: () => '/subscriptions',
    body: (p, x) => ({ ...subscriptionBody(p), metadata: { origin: x } }),
    key: 'metadata.origin',
  },
  {
    name: 'subscription customer_document',
    url: () => '/subscriptions',
    body: (p, x) => ({ ...subscriptionBody(p), customer_id: undefined, customer_document: x }),
    key: 'customer_document',
  },
  {
    name: 'annual cancellation reason',
    method: 'PUT',
    url: (p) => `/annual-plans/${p.unpaidAnnualId}/cancellation`,
    body: (_p, x) => ({ reason: x }),
    key: 'reason',
  },
  {
    name: 'login client_id',
    url: () => '/auth/login',
    body: (_p, x) => ({ client_id: x, client_secret: 'secret' }),
    key: 'client_id',
  },
  {
    name: 'login email',
    url: () => '/auth/login',
    body: (_p, x) => ({ email: x, password: 'secret' }),
    key: 'email',
  },
]

describe('body string fields', () => {
  it.each(FIELDS.map((f) => [f.name, f] as const))(
    '%s: every nasty value → 2xx or 4xx; NUL, a bidi override or an unpaired surrogate → 422',
    async (_n, f) => {
      const p = w.a.external
      for (const [name, value] of [...NASTY, ...UNPAIRED]) {
        const response = await w.call(f.method ?? 'POST', f.url(p), p.token, f.body(p, value))
        expectHandled(response, `${f.name} ${name}`)
        if (value.includes(NUL) || value.includes('\u202E') || UNPAIRED.some(([, v]) => v === value)) {
          expect(response.statusCode, `${f.name} ${name}`).toBe(422)
          expect(Object.keys(response.json().errors)).toEqual([f.key])
        }
      }
    },
  )

  it('stored text comes back exactly as sent (emoji, combining marks, quotes)', async () => {
    const { token } = w.a.external
    for (const [name, value] of NASTY.filter(([, v]) => !/[\0\u202E]/.test(v) && v.length < 255)) {
      const created = await w.ok('POST', '/customers', token, { ...customerBody(), name: `Ana ${value}` })
      const read = await w.ok('GET', `/customers/${created.document}`, token)
      expect(read.name, name).toBe(`Ana ${value}`.trim())
    }
  })

  it('text in any script is kept: Arabic and Hebrew names need no bidi control', async () => {
    const { token } = w.a.external
    const created = await w.ok('POST', '/customers', token, { ...customerBody(), name: 'مريم שרה Ana' })
    expect(created.name).toBe('مريم שרה Ana')
  })

  const NAMES: [string, Method, (p: Party) => string, (p: Party, x: string) => Json, string][] = [
    ['customer name', 'POST', () => '/customers', (_p, x) => ({ ...customerBody(), name: x }), 'name'],
    [
      'store responsible name',
      'POST',
      () => '/shopkeepers',
      (_p, x) => {
        const body = shopkeeperBody()
        return { ...body, responsible: { ...(body.responsible as Json), name: x } }
      },
      'responsible.name',
    ],
    [
      'store trading name',
      'POST',
      () => '/shopkeepers',
      (_p, x) => ({ ...shopkeeperBody(), trading_name: x }),
      'trading_name',
    ],
    [
      'card holder',
      'POST',
      (p) => `/annual-plans/${p.unpaidAnnualId}/payment`,
      (_p, x) => ({ ...annualCard, card_holder: x }),
      'card_holder',
    ],
    [
      'webhook endpoint description',
      'POST',
      () => '/webhook-endpoints',
      (_p, x) => ({ url: 'https://hooks.example.com/amparo', description: x }),
      'description',
    ],
  ]

  it.each(NAMES)(
    'bidi controls in a %s → 422 under the field, nothing stored',
    async (name, method, url, body, key) => {
      const p = name === 'card holder' ? w.a.own : w.a.external
      const before = await snapshot(w.db)
      for (const control of BIDI) {
        const response = await w.call(method, url(p), p.token, body(p, `Maria ${control}Silva`))
        expect(response.statusCode, `${name} U+${control.codePointAt(0)?.toString(16)}`).toBe(422)
        expect(response.json().errors).toEqual({
          [key]: [`The ${key.replace(/_/g, ' ')} field must not contain bidirectional control characters.`],
        })
      }
      expect(await snapshot(w.db)).toEqual(before)
    },
  )

  it('NUL inside X-CREDENTIALS or Basic credentials → 401, never a server fault', async () => {
    const pair = Buffer.from(`test_${NUL}abc:secret${NUL}`).toString('base64')
    for (const headers of [{ 'x-credentials': pair }, { authorization: `Basic ${pair}` }]) {
      const response = await w.call('POST', '/auth/login', null, undefined, headers)
      expect(response.statusCode, response.body).toBe(401)
    }
  })
})
