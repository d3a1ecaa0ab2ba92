import { describe, expect, it } from 'vitest'
import { expectedError } from '../helpers/errors.js'
import {
  annualBody,
  annualCard,
  customerBody,
  expectHandled,
  type Json,
  type Method,
  type Party,
  shopkeeperBody,
  snapshot,
  subscriptionBody,
  subscriptionCard,
  useSecurityWorld,
  withField,
} from '../helpers/world/security.js'

// OWASP API4:2023 (unrestricted resource consumption): oversized bodies, strings, arrays and pages.

const w = useSecurityWorld()

const LONG = 'x'.repeat(10_000)
const HUGE = 'x'.repeat(1024 * 1024 + 1)
const many = <T>(item: (i: number) => T) => Array.from({ length: 10_000 }, (_, i) => item(i))

interface Target {
  name: string
  method: Method
  url: (p: Party) => string
  body: (p: Party) => Json
  own?: boolean
  /** Every string field, as a dot path. */
  strings: string[]
}
const ADDRESS = ['street', 'complement', 'neighborhood', 'city']
const TARGETS: Target[] = [
  {
    name: 'POST /customers',
    method: 'POST',
    url: () => '/customers',
    body: () => customerBody(),
    strings: [
      'name',
      'document',
      'email',
      'phone',
      'address.zipcode',
      'address.state',
      ...ADDRESS.map((k) => `address.${k}`),
    ],
  },
  {
    name: 'POST /shopkeepers',
    method: 'POST',
    url: () => '/shopkeepers',
    body: () => shopkeeperBody(),
    strings: [
      ...['trading_name', 'registration_number', 'phone', 'website'],
      ...[...ADDRESS, 'zip_code', 'number', 'state'].map((k) => `address.${k}`),
      ...['name', 'email', 'phone', 'registration_number', 'role', 'rg'].map((k) => `responsible.${k}`),
      ...['name', 'agency', 'account', 'account_digit'].map((k) => `bank.${k}`),
    ],
  },
  {
    name: 'POST /subscriptions',
    method: 'POST',
    url: () => '/subscriptions',
    body: subscriptionBody,
    strings: ['customer_document', 'serial_number', 'second_serial_number', 'metadata.origin'],
  },
  {
    name: 'POST /annual-plans',
    method: 'POST',
    url: () => '/annual-plans',
    body: annualBody,
    strings: ['customer_document', 'imei', 'imei_2', 'payment.method'],
  },
  {
    name: 'POST /subscriptions/{id}/payment',
    method: 'POST',
    url: (p) => `/subscriptions/${p.subscription.id}/payment`,
    body: () => structuredClone(subscriptionCard),
    own: true,
    strings: ['creditCard.number', 'creditCard.expiry', 'creditCard.cvv', 'creditCard.holder'],
  },
  {
    name: 'POST /annual-plans/{id}/payment',
    method: 'POST',
    url: (p) => `/annual-plans/${p.unpaidAnnualId}/payment`,
    body: () => ({ ...annualCard }),
    own: true,
    strings: ['card_number', 'card_holder', 'card_expiry', 'card_cvv'],
  },
  {
    name: 'POST /subscriptions/{id}/cancellation',
    method: 'POST',
    url: (p) => `/subscriptions/${p.subscription.id}/cancellation`,
    body: () => ({ reason: 'motivo' }),
    strings: ['reason'],
  },
  {
    name: 'PUT /annual-plans/{id}/cancellation',
    method: 'PUT',
    url: (p) => `/annual-plans/${p.unpaidAnnualId}/cancellation`,
    body: () => ({ reason: 'motivo' }),
    strings: ['reason'],
  },
  {
    name: 'POST /auth/login',
    method: 'POST',
    url: () => '/auth/login',
    body: () => ({ client_id: 'test_x', client_secret: 'y', email: 'a@b.c', password: 'z' }),
    strings: ['client_id', 'client_secret', 'email', 'password'],
  },
]
const partyOf = (t: Target) => (t.own ? w.a.own : w.a.external)
const send = (t: Target, body: unknown) => w.call(t.method, t.url(partyOf(t)), partyOf(t).token, body)

describe('body size', () => {
  it.each(TARGETS.map((t) => [t.name, t] as const))('%s: a body over 1 MiB → 413', async (_n, t) => {
    const response = await send(t, { ...t.body(partyOf(t)), padding: HUGE })
    expect(response.statusCode, response.body.slice(0, 200)).toBe(413)
    expect(response.json()).toEqual(
      expectedError(response, 'payload_too_large', { message: expect.any(String) }),
    )
  })

  it('a body just under 1 MiB is read (and its unknown field ignored)', async () => {
    const body = { ...customerBody(), padding: 'x'.repeat(1024 * 1024 - 1024) }
    const response = await w.call('POST', '/customers', w.a.external.token, body)
    expect(response.statusCode, response.body.slice(0, 200)).toBe(201)
  })
})

describe('10,000-character strings', () => {
  const cases = TARGETS.flatMap((t) => t.strings.map((path) => [`${t.name} ${path}`, t, path] as const))
  it.each(cases)('%s → 422 under that field, nothing stored', async (_n, t, path) => {
    const before = await snapshot(w.db)
    const response = await send(t, withField(t.body(partyOf(t)), path, LONG))
    expect(response.statusCode, response.body.slice(0, 300)).toBe(422)
    expect(Object.keys(response.json().errors)).toEqual([path])
    expect(await snapshot(w.db)).toEqual(before)
  })
})

describe('10,000-element arrays', () => {
  const strings = many((i) => `item-${i}`)
  const objects = many((i) => ({ amount: i, status: 'paid' }))
  const refused: [string, Target, string][] = [
    ['customer address', TARGETS[0] as Target, 'address'],
    ['customer name', TARGETS[0] as Target, 'name'],
    ['store address', TARGETS[1] as Target, 'address'],
    ['store responsible', TARGETS[1] as Target, 'responsible'],
    ['store bank', TARGETS[1] as Target, 'bank'],
    ['subscription metadata', TARGETS[2] as Target, 'metadata'],
    ['subscription plan_id', TARGETS[2] as Target, 'plan_id'],
    ['annual plan payment', TARGETS[3] as Target, 'payment'],
    ['annual plan imei', TARGETS[3] as Target, 'imei'],
    ['card', TARGETS[4] as Target, 'creditCard'],
  ]
  it.each(refused)('%s replaced by an array → 422 under it, quickly', async (_n, t, path) => {
    const started = performance.now()
    const response = await send(t, withField(t.body(partyOf(t)), path, strings))
    expect(response.statusCode, response.body.slice(0, 300)).toBe(422)
    expect(Object.keys(response.json().errors)).toEqual([path])
    expect(performance.now() - started).toBeLessThan(2000)
  })

  it.each([
    ['items', objects],
    ['coverages', strings],
    ['installments', objects],
  ])('an extra %s array on POST /subscriptions is ignored, quickly', async (key, array) => {
    const started = performance.now()
    const response = await w.call('POST', '/subscriptions', w.a.external.token, {
      ...subscriptionBody(w.a.external),
      [key]: array,
    })
    expect(response.statusCode, response.body.slice(0, 300)).toBe(201)
    expect(response.json().installments_count).toBe(12)
    expect(performance.now() - started).toBeLessThan(2000)
  })

  it('a body that is an array, or deeply nested, is refused without a server fault', async () => {
    const array = await w.call('POST', '/customers', w.a.external.token, strings)
    expect(array.statusCode).toBe(422)
    const deep = `{"nested":${'['.repeat(5000)}${']'.repeat(5000)}}`
    const nested = await w.call('POST', '/customers', w.a.external.token, deep, {
      'content-type': 'application/json',
    })
    expectHandled(nested, 'deeply nested body')
  })
})

describe('pages', () => {
  const LISTS = ['/brands', '/models', '/shopkeepers', '/subscriptions', '/annual-plans']
  const bad: [string, string][] = [
    ['per_page=101', 'per_page'],
    ['per_page=0', 'per_page'],
    ['per_page=-1', 'per_page'],
    ['per_page=1e2', 'per_page'],
    ['per_page=10&per_page=20', 'per_page'],
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['page=0x10', 'page'],
  ]
  const cases = LISTS.flatMap((url) => bad.map(([query, key]) => [`${url}?${query}`, key] as const))

  it.each(cases)('GET %s → 422 under %s', async (url, key) => {
    const response = await w.call('GET', url, w.a.external.token)
    expect(response.statusCode, response.body).toBe(422)
    expect(Object.keys(response.json().errors)).toEqual([key])
  })

  it.each(LISTS)('GET %s: a page far past the end is empty; beyond the integer range → 422', async (url) => {
    for (const page of ['100', '2147483647']) {
      const response = await w.call('GET', `${url}?per_page=100&page=${page}`, w.a.external.token)
      expect(response.statusCode, response.body).toBe(200)
      expect(response.json().data).toEqual([])
    }
    for (const page of ['2147483648', '9007199254740993', '99999999999999999999']) {
      const response = await w.call('GET', `${url}?per_page=100&page=${page}`, w.a.external.token)
      expect(response.statusCode, response.body).toBe(422)
      expect(Object.keys(response.json().errors)).toEqual(['page'])
    }
  })
})
