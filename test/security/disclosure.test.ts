import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../../src/app.js'
import type { PaymentGateway } from '../../src/modules/payments/payment-gateway.js'
import { expectedError } from '../helpers/errors.js'
import { sandboxWith } from '../helpers/gateways.js'
import { buildCheckedApp } from '../helpers/test-app.js'
import { TEST_JWT_KEYS } from '../helpers/test-db.js'
import {
  annualBody,
  annualCard,
  clock,
  customerBody,
  type Json,
  type Method,
  type Res,
  shopkeeperBody,
  subscriptionBody,
  useSecurityWorld,
} from '../helpers/world/security.js'

// OWASP API8:2023 (security misconfiguration) and API3 (excessive data exposure): whatever the
// outcome, a response reveals no internals, secrets, tokens or card data, and carries the headers.

const w = useSecurityWorld()
/** The same service on the same database with a card gateway that fails with a revealing error. */
let broken: App
const responses: { what: string; response: Res }[] = []

const DECLINED = '4000000000000002'
const BANK = {
  name: 'Banco Sigiloso XYZ',
  agency: 'AG-SIGILO-77',
  account: 'CC-SIGILO-99',
  account_digit: 'DV-SIGILO',
}
const INTERNAL_FAILURE =
  'connect ECONNREFUSED 10.0.0.7:5432 at /work/main/src/secret.ts:42 select * from cards'

beforeAll(async () => {
  const failing: PaymentGateway = sandboxWith({
    chargeCard: async () => {
      throw new Error(INTERNAL_FAILURE)
    },
    chargeSaved: async () => {
      throw new Error(INTERNAL_FAILURE)
    },
  })
  broken = await buildCheckedApp({
    config: w.ctx.config,
    db: w.db,
    clock,
    gateway: failing,
    logger: false,
  })
  await collect()
})
afterAll(async () => {
  await broken?.close()
})

async function collect() {
  const [ext, own] = [w.a.external, w.a.own]
  const run = async (
    what: string,
    method: Method,
    url: string,
    token: string | null,
    payload?: unknown,
    headers?: Json,
  ) => {
    const response = await w.call(method, url, token, payload, headers)
    responses.push({ what, response })
    return response
  }
  const { credentials } = ext
  await run('login 200', 'POST', '/auth/login', null, {
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
  })
  await run('login 401', 'POST', '/auth/login', null, {
    client_id: credentials.clientId,
    client_secret: 'wrong',
  })
  await run('login 422', 'POST', '/auth/login', null, { client_id: credentials.clientId })
  for (const url of [
    '/health',
    '/ready',
    '/brands',
    '/models',
    `/models/${ext.modelId}`,
    `/brands/${ext.exclusive.brandId}?include=models,modelCount`,
    `/customers/${ext.customer.document}`,
    '/plans',
    `/quotation?model_id=${ext.modelId}`,
    `/plans/${ext.subscriptionPlanId}/quotation?model_id=${ext.modelId}`,
    `/annual-plans/quote?model_id=${ext.modelId}`,
    '/shopkeepers',
    `/shopkeepers/${ext.storeId}`,
    '/subscriptions',
    `/subscriptions/${ext.subscription.id}`,
    `/subscriptions/${ext.subscription.id}/installments`,
    '/annual-plans',
    `/annual-plans/${ext.annual.id}`,
    '/annual-plans/999999',
    '/nowhere',
    '/brands?per_page=1000',
    '/quotation?model_id=abc',
  ])
    await run(`GET ${url}`, 'GET', url, ext.token)
  const store = { ...shopkeeperBody(), bank: BANK }
  await run('store 201', 'POST', '/shopkeepers', ext.token, store)
  await run('store 422 duplicate', 'POST', '/shopkeepers', ext.token, store)
  const customer = customerBody()
  await run('customer 201', 'POST', '/customers', ext.token, customer)
  await run('customer 422 duplicate', 'POST', '/customers', ext.token, customer)
  await run('subscription 201', 'POST', '/subscriptions', ext.token, subscriptionBody(ext))
  await run('annual 201', 'POST', '/annual-plans', ext.token, annualBody(ext))
  await run('400 bad JSON', 'POST', '/customers', ext.token, '{"name": ', {
    'content-type': 'application/json',
  })
  await run('415 text', 'POST', '/customers', ext.token, 'name=x', { 'content-type': 'text/plain' })
  await run('413', 'POST', '/customers', ext.token, { name: 'x'.repeat(1_100_000) })
  const card = (number: string) => ({ creditCard: { number, expiry: '1230', cvv: '9876', holder: 'MARIA' } })
  await run(
    'card 422',
    'POST',
    `/subscriptions/${own.subscription.id}/payment`,
    own.token,
    card('4111111111111112'),
  )
  await run('card 402', 'POST', `/subscriptions/${own.subscription.id}/payment`, own.token, card(DECLINED))
  const annualDeclined = { ...annualCard, card_number: DECLINED, card_cvv: '9876' }
  await run(
    'annual card 402',
    'POST',
    `/annual-plans/${own.unpaidAnnualId}/payment`,
    own.token,
    annualDeclined,
  )
  await run(
    'notify 200',
    'POST',
    `/subscriptions/${ext.subscription.id}/installments/${ext.subscription.installmentIds[0]}/notify-payment`,
    ext.token,
  )
  await run('annual notify 200', 'POST', `/annual-plans/${ext.unpaidAnnualId}/notify-payment`, ext.token)
  await run(
    'cancellation 404',
    'POST',
    `/annual-plans/${ext.annual.id}/cancellation/CAN-AAAAAAAAAA`,
    ext.token,
  )
  await run(
    'cancellation 200',
    'POST',
    `/annual-plans/${ext.annual.id}/cancellation/${ext.annual.protocol}`,
    ext.token,
  )
  await run(
    'card 200',
    'POST',
    `/subscriptions/${own.subscription.id}/payment`,
    own.token,
    card('4111111111111111'),
  )
  const failed = await broken.inject({
    method: 'POST',
    url: `/annual-plans/${own.unpaidAnnualId}/payment`,
    headers: { authorization: `Bearer ${own.token}` },
    payload: { ...annualCard, card_cvv: '9876' },
  })
  responses.push({ what: 'gateway failure 500', response: failed })
}

const STACK = /\bat .*(?:file:|node:|\/)\S*:\d+:\d+|\.(?:ts|js|mjs|cjs):\d+:\d+/
const FORBIDDEN: [string, RegExp][] = [
  ['a stack trace', STACK],
  [
    'SQL text',
    /select |insert into|update \w+ set|SQLITE_|relation "|duplicate key|violates|constraint failed/i,
  ],
  ['an internal path', /\/work\/|node_modules|src\//],
  ['a card number', /4111111111111111|4000000000000002|4111111111111112/],
  ['a card security code', /"(?:cvv|card_cvv)"|"9876"/],
  ['bank data', /SIGILO|Sigiloso/],
  ['a JWT', /eyJ[\w-]+\.eyJ[\w-]+\./],
]

/** The match with some context, or null: a failure shows where, not a whole 170 kB body. */
function found(body: string, pattern: RegExp): string | null {
  const match = pattern.exec(body)
  return match ? body.slice(Math.max(0, match.index - 60), match.index + match[0].length + 60) : null
}

describe('response bodies', () => {
  it('the collection covers the outcomes that matter', () => {
    const statuses = new Set(responses.map((r) => r.response.statusCode))
    for (const status of [200, 201, 400, 401, 402, 404, 413, 415, 422, 500])
      expect(statuses).toContain(status)
  })

  it.each(FORBIDDEN)('no response body contains %s (the login’s own token aside)', (_name, pattern) => {
    for (const { what, response } of responses) {
      const body =
        what === 'login 200'
          ? response.body.replace(response.json().token, '').replace(response.json().access_token, '')
          : response.body
      expect(found(body, pattern), what).toBeNull()
    }
  })

  it('no body contains a client secret, a signing key or another response’s token', () => {
    const secrets = [
      ...[w.a.external, w.a.own, w.b.external, w.b.own].flatMap((p) => [p.credentials.clientSecret, p.token]),
      TEST_JWT_KEYS.current.secret,
      TEST_JWT_KEYS.previous.secret,
    ]
    for (const { what, response } of responses) {
      // The login answers a token (the same one as the party's: same claims, same instant).
      const body = what === 'login 200' ? response.body.replaceAll(response.json().token, '') : response.body
      for (const secret of secrets) expect(body.includes(secret), what).toBe(false)
    }
  })

  it('a server fault answers only the generic message and a request id', () => {
    const { response } = responses.find((r) => r.what === 'gateway failure 500') as { response: Res }
    expect(response.statusCode).toBe(500)
    expect(response.json()).toEqual(expectedError(response, 'server_error', { message: 'Server error.' }))
  })

  it('card data comes back only as brand and last four digits', () => {
    const { response } = responses.find((r) => r.what === 'card 200') as { response: Res }
    expect(response.statusCode, response.body).toBe(200)
    expect(response.body).not.toMatch(/card_token|tok_|"token"/)
  })
})

describe('headers', () => {
  it('no response says what runs it; every API response carries the security headers', () => {
    for (const { what, response } of responses) {
      expect(response.headers['x-powered-by'], what).toBeUndefined()
      expect(response.headers.server, what).toBeUndefined()
      expect(response.headers['x-content-type-options'], what).toBe('nosniff')
      expect(response.headers['cache-control'], what).toBe('no-store')
      expect(response.headers['x-frame-options'], what).toBe('DENY')
      expect(response.headers['content-security-policy'], what).toMatch(/default-src 'none'/)
      expect(response.headers['content-type'], what).toMatch(/^application\/json/)
    }
  })

  it('the public documents reveal no internals and are not frameable', async () => {
    for (const url of ['/openapi.json', '/docs']) {
      const response = await w.call('GET', url, null)
      expect(response.statusCode, url).toBe(200)
      expect(response.headers['x-powered-by']).toBeUndefined()
      expect(response.headers['x-content-type-options']).toBe('nosniff')
      expect(response.headers['x-frame-options']).toBe('DENY')
      expect(found(response.body, /\/work\/|node_modules/), url).toBeNull()
      expect(found(response.body, STACK), url).toBeNull()
      for (const secret of [TEST_JWT_KEYS.current.secret, w.a.external.credentials.clientSecret])
        expect(response.body.includes(secret)).toBe(false)
    }
  })
})
