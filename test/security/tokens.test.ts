import { randomBytes } from 'node:crypto'
import { type JWTPayload, SignJWT } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../../src/db/transaction.js'
import { revokeCredentials } from '../../src/modules/partners/partner.service.js'
import { unauthenticatedText } from '../helpers/errors.js'
import { TEST_JWT_KEYS } from '../helpers/test-db.js'
import {
  annualBody,
  annualCard,
  customerBody,
  type Method,
  NOW,
  type Party,
  shopkeeperBody,
  snapshot,
  subscriptionBody,
  subscriptionCard,
  useSecurityWorld,
} from '../helpers/world/security.js'
import { credentialsFor, login, seedUser } from '../helpers/world.js'

// OWASP API2:2023 (broken authentication): a token that is not genuine, current and of an active
// credential answers exactly 401 on every module's routes, before any validation or lookup.

const w = useSecurityWorld()
let revokedToken: string
let revokedClaims: JWTPayload
let disabledUserToken: string
beforeAll(async () => {
  const a = w.a.external
  const second = await credentialsFor(w.db, a.partnerId, 'test', NOW.toISOString())
  revokedToken = await login(w.app, {
    id: a.partnerId,
    clientId: second.client_id,
    clientSecret: second.client_secret,
  })
  revokedClaims = await claimsOf(second.client_id)
  await retryingTransaction(w.db, (trx) => revokeCredentials(trx, second.client_id, NOW.toISOString()))
  await seedUser(w.db, a.partnerId, 'ops@a.example', 'correct horse battery', NOW.toISOString())
  const user = await w.ok('POST', '/auth/login', '', {
    email: 'ops@a.example',
    password: 'correct horse battery',
  })
  disabledUserToken = user.token as string
  await retryingTransaction(w.db, (trx) =>
    trx.updateTable('partner_users').set({ disabled: true }).where('email', '=', 'ops@a.example').execute(),
  )
})

const seconds = () => Math.floor(NOW.getTime() / 1000)
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

async function claimsOf(clientId: string): Promise<JWTPayload> {
  const credential = await w.db
    .selectFrom('credentials')
    .select(['id', 'partner_id'])
    .where('client_id', '=', clientId)
    .executeTakeFirstOrThrow()
  return { sub: `client:${credential.id}`, pid: credential.partner_id, iat: seconds(), exp: seconds() + 600 }
}

function sign(
  claims: JWTPayload,
  secret: Uint8Array | string = TEST_JWT_KEYS.current.secret,
  kid = TEST_JWT_KEYS.current.kid,
) {
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid }).sign(key)
}

const genuine = () => claimsOf(w.a.external.credentials.clientId)

const ATTACKS: [string, () => Promise<string>][] = [
  [
    'alg none',
    async () =>
      `${b64url({ alg: 'none', typ: 'JWT', kid: TEST_JWT_KEYS.current.kid })}.${b64url(await genuine())}.`,
  ],
  ['a wrong key', async () => sign(await genuine(), new Uint8Array(randomBytes(32)))],
  [
    'a flipped signature byte',
    async () => {
      const [header, payload, signature = ''] = (await sign(await genuine())).split('.')
      return `${header}.${payload}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`
    },
  ],
  ['an expired token', async () => sign({ ...(await genuine()), iat: seconds() - 7200, exp: seconds() - 1 })],
  [
    'a token without exp',
    async () => {
      const { exp: _exp, ...claims } = await genuine()
      return sign(claims)
    },
  ],
  ['a revoked credential’s token', async () => revokedToken],
  ['a token re-signed for a revoked credential', async () => sign(revokedClaims)],
  ['a disabled user’s token', async () => disabledUserToken],
  [
    'a kid naming a path',
    async () => sign(await genuine(), TEST_JWT_KEYS.current.secret, '../../../../etc/passwd'),
  ],
  ['a kid with SQL', async () => sign(await genuine(), TEST_JWT_KEYS.current.secret, "k2' OR '1'='1")],
  ['the other partner’s pid', async () => sign({ ...(await genuine()), pid: w.b.external.partnerId })],
  ['a subject with SQL', async () => sign({ ...(await genuine()), sub: "client:1' OR 1=1 --" })],
  ['garbage', async () => 'not-a-jwt'],
  ['an oversized token', async () => `${await sign(await genuine())}${'A'.repeat(5000)}`],
]

interface Route {
  module: string
  method: Method
  url: (p: Party) => string
  payload?: (p: Party) => unknown
  own?: boolean
}
const ROUTES: Route[] = [
  { module: 'catalog', method: 'GET', url: () => '/brands' },
  { module: 'catalog', method: 'GET', url: (p) => `/models/${p.modelId}` },
  { module: 'customers', method: 'GET', url: (p) => `/customers/${p.customer.document}` },
  { module: 'customers', method: 'POST', url: () => '/customers', payload: () => customerBody() },
  { module: 'plans', method: 'GET', url: () => '/plans' },
  { module: 'plans', method: 'GET', url: (p) => `/quotation?model_id=${p.modelId}` },
  { module: 'plans', method: 'GET', url: (p) => `/annual-plans/quote?model_id=${p.modelId}` },
  { module: 'shopkeepers', method: 'GET', url: (p) => `/shopkeepers/${p.storeId}` },
  { module: 'shopkeepers', method: 'POST', url: () => '/shopkeepers', payload: () => shopkeeperBody() },
  { module: 'subscriptions', method: 'GET', url: () => '/subscriptions' },
  { module: 'subscriptions', method: 'POST', url: () => '/subscriptions', payload: subscriptionBody },
  {
    module: 'subscriptions',
    method: 'POST',
    url: (p) =>
      `/subscriptions/${p.subscription.id}/installments/${p.subscription.installmentIds[0]}/notify-payment`,
  },
  {
    module: 'subscriptions',
    method: 'POST',
    url: (p) => `/subscriptions/${p.subscription.id}/payment`,
    payload: () => subscriptionCard,
    own: true,
  },
  { module: 'subscriptions', method: 'POST', url: (p) => `/subscriptions/${p.subscription.id}/cancellation` },
  { module: 'annual plans', method: 'GET', url: (p) => `/annual-plans/${p.annual.id}` },
  { module: 'annual plans', method: 'POST', url: () => '/annual-plans', payload: annualBody },
  {
    module: 'annual plans',
    method: 'POST',
    url: (p) => `/annual-plans/${p.unpaidAnnualId}/payment`,
    payload: () => annualCard,
    own: true,
  },
  { module: 'annual plans', method: 'PUT', url: (p) => `/annual-plans/${p.unpaidAnnualId}/cancellation` },
  {
    module: 'annual plans',
    method: 'POST',
    url: (p) => `/annual-plans/${p.annual.id}/cancellation/${p.annual.protocol}`,
  },
]
const routeName = (r: Route) => `${r.module}: ${r.method} ${r.url(w.a.own).replace(/\d+/g, '{id}')}`

describe('forged, expired and revoked tokens', () => {
  it.each(ATTACKS)(
    '%s → exactly 401 on a sample of every module’s routes, nothing changes',
    async (_name, token) => {
      const forgedToken = await token()
      const before = await snapshot(w.db)
      for (const route of ROUTES) {
        const party = route.own ? w.a.own : w.a.external
        const response = await w.call(route.method, route.url(party), forgedToken, route.payload?.(party))
        expect(response.statusCode, `${routeName(route)}: ${response.body}`).toBe(401)
        expect(response.body).toBe(unauthenticatedText(response))
        expect(response.headers['www-authenticate']).toBe('Bearer')
      }
      expect(await snapshot(w.db)).toEqual(before)
    },
  )

  it('the token in the query string or a cookie is not a credential', async () => {
    const token = w.a.external.token
    for (const response of [
      await w.call('GET', `/brands?token=${token}`, null),
      await w.call('GET', `/brands?access_token=${token}`, null),
      await w.call('GET', '/brands', null, undefined, { cookie: `token=${token}` }),
      await w.call('GET', '/brands', null, undefined, { authorization: `Basic ${token}` }),
      await w.call('GET', '/brands', null, undefined, { authorization: `Bearer  ${token}` }),
    ]) {
      expect(response.statusCode).toBe(401)
      expect(response.body).toBe(unauthenticatedText(response))
    }
  })

  it('the genuine token passes every sampled route (control): no 401, no 5xx', async () => {
    for (const route of ROUTES) {
      const party = route.own ? w.a.own : w.a.external
      const response = await w.call(route.method, route.url(party), party.token, route.payload?.(party))
      expect(response.statusCode, `${routeName(route)}: ${response.body}`).toBeLessThan(300)
    }
  })
})
