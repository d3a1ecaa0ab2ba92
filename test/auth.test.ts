import { randomBytes } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { decodeJwt, decodeProtectedHeader, type JWTPayload, SignJWT } from 'jose'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { revokeCredentials } from '../src/modules/partners/partner.service.js'
import { expectedError, unauthenticatedText } from './helpers/errors.js'
import { useTestApp } from './helpers/test-app.js'
import { TEST_JWT_KEYS } from './helpers/test-db.js'
import { bearer, login, seedCatalog, seedPartner, seedUser, type TestPartner } from './helpers/world.js'

// A fixed clock: tokens are issued and checked at this instant unless a test moves it.
const START = new Date('2026-11-21T15:00:00Z')
let now = START
const clock = { now: () => now }
const nowSeconds = () => Math.floor(now.getTime() / 1000)

const TTL_SECONDS = 3600
/** START + AMPARO_TOKEN_TTL, in America/Sao_Paulo (UTC−3). */
const EXPIRES_IN = '2026-11-21 13:00:00'
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

const USER_EMAIL = 'ops@partner.example'
const USER_PASSWORD = 'correct horse battery'

let partner: TestPartner
let other: TestPartner
/** Everything the app logs during this file, at trace level, through the production logger options. */
const logLines: string[] = []

// One app and database for the whole file (see the logs tests at the end).
const ctx = useTestApp({
  clock,
  env: { LOG_LEVEL: 'trace' },
  logStream: {
    write: (line: string) => {
      logLines.push(line)
    },
  },
})
beforeAll(async () => {
  await seedCatalog(ctx.db)
  partner = await seedPartner(ctx.db)
  other = await seedPartner(ctx.db, 'own')
  await seedUser(ctx.db, partner.id, USER_EMAIL, USER_PASSWORD)
})
afterEach(() => {
  now = START
})

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url')
const pairOf = (p: TestPartner) => b64(`${p.clientId}:${p.clientSecret}`)

function postLogin(payload?: object, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'POST', url: '/auth/login', payload, headers })
}

function getBrands(headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'GET', url: '/brands', headers })
}

function expectUnauthenticated(response: LightMyRequestResponse) {
  expect(response.statusCode).toBe(401)
  expect(response.body).toBe(unauthenticatedText(response))
  expect(response.headers['www-authenticate']).toBe('Bearer')
}

async function expectBrandsServed(token: string) {
  const response = await getBrands(bearer(token))
  expect(response.statusCode, response.body).toBe(200)
  expect(response.json().data.length).toBeGreaterThan(0)
}

async function credentialOf(p: TestPartner) {
  return ctx.db
    .selectFrom('credentials')
    .select(['id', 'partner_id'])
    .where('client_id', '=', p.clientId)
    .executeTakeFirstOrThrow()
}

/** Claims of a genuine token for the partner's credential, valid for ten more minutes. */
async function validClaims(p: TestPartner): Promise<JWTPayload> {
  const credential = await credentialOf(p)
  return {
    sub: `client:${credential.id}`,
    pid: credential.partner_id,
    aud: 'amparo:test',
    iat: nowSeconds(),
    exp: nowSeconds() + 600,
  }
}

interface SignOptions {
  secret?: string | Uint8Array
  kid?: string | undefined
  alg?: string
}

function sign(claims: JWTPayload, options: SignOptions = {}): Promise<string> {
  const { secret = TEST_JWT_KEYS.current.secret, alg = 'HS256' } = options
  const kid = 'kid' in options ? options.kid : TEST_JWT_KEYS.current.kid
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret
  return new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT', ...(kid && { kid }) }).sign(key)
}

describe('POST /auth/login', () => {
  const forms: [string, () => Promise<LightMyRequestResponse>, 'client' | 'user'][] = [
    [
      'the body client pair',
      () => postLogin({ client_id: partner.clientId, client_secret: partner.clientSecret }),
      'client',
    ],
    ['the body email and password', () => postLogin({ email: USER_EMAIL, password: USER_PASSWORD }), 'user'],
    [
      'X-CREDENTIALS: base64(id:secret)',
      () => postLogin(undefined, { 'x-credentials': pairOf(partner) }),
      'client',
    ],
    [
      'Authorization: Basic base64(id:secret)',
      () => postLogin(undefined, { authorization: `Basic ${pairOf(partner)}` }),
      'client',
    ],
  ]

  it.each(forms)('logs in with %s and returns both seed shapes of the token', async (_name, send, kind) => {
    const response = await send()
    expect(response.statusCode, response.body).toBe(200)
    const body = response.json()
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token', 'token_type'])
    expect(body.token_type).toBe('Bearer')
    expect(body.access_token).toBe(body.token)
    expect(body.expires_in).toMatch(TIMESTAMP)
    expect(body.expires_in).toBe(EXPIRES_IN)

    const claims = decodeJwt(body.token)
    expect(claims.pid).toBe(partner.id)
    expect(claims.sub).toMatch(new RegExp(`^${kind}:\\d+$`))
    expect(claims.exp).toBe(START.getTime() / 1000 + TTL_SECONDS)

    await expectBrandsServed(body.token)
  })

  it('logs a user in whatever the case of the email', async () => {
    const response = await postLogin({ email: USER_EMAIL.toUpperCase(), password: USER_PASSWORD })
    expect(response.statusCode, response.body).toBe(200)
  })

  it('issues tokens that stop working exactly AMPARO_TOKEN_TTL seconds later', async () => {
    const token = await login(ctx.app, partner)
    now = new Date(START.getTime() + (TTL_SECONDS - 1) * 1000)
    await expectBrandsServed(token)
    now = new Date(START.getTime() + TTL_SECONDS * 1000)
    expectUnauthenticated(await getBrands(bearer(token)))
  })
})

describe('POST /auth/login with wrong credentials', () => {
  it('answers an unknown client id and a wrong secret with byte-identical 401s', async () => {
    // One request id for both, so that the bodies (which repeat it) may be identical.
    const sameId = { 'x-request-id': 'login-401' }
    const unknownId = await postLogin(
      { client_id: 'test_000000000000000000000000', client_secret: 'whatever' },
      sameId,
    )
    const wrongSecret = await postLogin(
      { client_id: partner.clientId, client_secret: `${partner.clientSecret}x` },
      sameId,
    )
    expectUnauthenticated(unknownId)
    expectUnauthenticated(wrongSecret)
    expect(wrongSecret.rawPayload.equals(unknownId.rawPayload)).toBe(true)
    expect(wrongSecret.headers['content-type']).toBe(unknownId.headers['content-type'])
  })

  it('compares a secret as sent: spaces around it are not dropped as around other fields', async () => {
    const padded = await postLogin({
      client_id: ` ${partner.clientId} `,
      client_secret: partner.clientSecret,
    })
    expect(padded.statusCode, padded.body).toBe(200)
    expectUnauthenticated(
      await postLogin({ client_id: partner.clientId, client_secret: ` ${partner.clientSecret}` }),
    )
    expectUnauthenticated(await postLogin({ email: USER_EMAIL, password: ` ${USER_PASSWORD}` }))
  })

  it('refuses another partner’s secret for this client id', async () => {
    expectUnauthenticated(await postLogin({ client_id: partner.clientId, client_secret: other.clientSecret }))
  })

  it.each<[string, () => Record<string, string>]>([
    ['X-CREDENTIALS with a wrong secret', () => ({ 'x-credentials': b64(`${partner.clientId}:nope`) })],
    [
      'Authorization: Basic with a wrong secret',
      () => ({ authorization: `Basic ${b64(`${partner.clientId}:nope`)}` }),
    ],
    [
      'an X-CREDENTIALS that is not base64',
      () => ({ 'x-credentials': `${partner.clientId}:${partner.clientSecret}` }),
    ],
    ['an X-CREDENTIALS without a colon', () => ({ 'x-credentials': b64(partner.clientId) })],
    [
      'an Authorization: Basic with an empty secret',
      () => ({ authorization: `Basic ${b64(`${partner.clientId}:`)}` }),
    ],
  ])('answers %s with 401', async (_name, headers) => {
    expectUnauthenticated(await postLogin(undefined, headers()))
  })

  it('answers a wrong user password and an unknown email with the same 401', async () => {
    const sameId = { 'x-request-id': 'login-401' }
    const wrongPassword = await postLogin({ email: USER_EMAIL, password: `${USER_PASSWORD}!` }, sameId)
    const unknownEmail = await postLogin({ email: 'nobody@partner.example', password: USER_PASSWORD }, sameId)
    expectUnauthenticated(wrongPassword)
    expectUnauthenticated(unknownEmail)
    expect(wrongPassword.body).toBe(unknownEmail.body)
  })

  it('does not accept the client secret as a user password or the client id as an email', async () => {
    expectUnauthenticated(await postLogin({ email: partner.clientId, password: partner.clientSecret }))
  })
})

describe('POST /auth/login with missing or invalid fields', () => {
  it.each<[string, object | undefined, string[]]>([
    ['no body and no header', undefined, ['client_id', 'client_secret']],
    ['an empty body', {}, ['client_id', 'client_secret']],
    ['client_id alone', { client_id: 'test_abc' }, ['client_secret']],
    ['client_secret alone', { client_secret: 'abc' }, ['client_id']],
    ['an empty client_secret', { client_id: 'test_abc', client_secret: '' }, ['client_secret']],
    ['email alone', { email: USER_EMAIL }, ['password']],
    ['password alone', { password: USER_PASSWORD }, ['email']],
  ])('answers %s with 422 naming the missing fields', async (_name, payload, keys) => {
    const response = await postLogin(payload)
    expect(response.statusCode, response.body).toBe(422)
    const body = response.json()
    expect(Object.keys(body.errors).sort()).toEqual(keys)
    expect(body.message).toBe(
      body.errors[keys[0] as string][0] + (keys.length > 1 ? ' (and 1 more error)' : ''),
    )
  })

  it('refuses a client_id that is not a string', async () => {
    const response = await postLogin({ client_id: 12345, client_secret: partner.clientSecret })
    expect(response.statusCode).toBe(422)
    expect(response.json().errors).toEqual({ client_id: ['The client id field must be a string.'] })
  })

  it('refuses a client_secret that is not a string', async () => {
    const response = await postLogin({ client_id: partner.clientId, client_secret: [partner.clientSecret] })
    expect(response.statusCode).toBe(422)
    expect(Object.keys(response.json().errors)).toEqual(['client_secret'])
  })

  it('refuses a client_id longer than 255 characters', async () => {
    const response = await postLogin({ client_id: 'x'.repeat(300), client_secret: 'abc' })
    expect(response.statusCode).toBe(422)
    expect(response.json().errors).toEqual({
      client_id: ['The client id field must not be greater than 255 characters.'],
    })
  })
})

describe('credential revocation', () => {
  it('stops the credential’s tokens at the very next request and refuses new logins', async () => {
    const revoked = await seedPartner(ctx.db)
    const token = await login(ctx.app, revoked)
    await expectBrandsServed(token)

    await retryingTransaction(ctx.db, (trx) => revokeCredentials(trx, revoked.clientId, now.toISOString()))

    expectUnauthenticated(await getBrands(bearer(token)))
    expectUnauthenticated(
      await postLogin({ client_id: revoked.clientId, client_secret: revoked.clientSecret }),
    )
    expectUnauthenticated(await postLogin(undefined, { 'x-credentials': pairOf(revoked) }))
    expectUnauthenticated(await postLogin(undefined, { authorization: `Basic ${pairOf(revoked)}` }))
  })

  it('leaves the tokens of other credentials working', async () => {
    const token = await login(ctx.app, other)
    const revoked = await seedPartner(ctx.db)
    await retryingTransaction(ctx.db, (trx) => revokeCredentials(trx, revoked.clientId, now.toISOString()))
    await expectBrandsServed(token)
  })

  it('refuses a token re-forged for a revoked credential even when signed with the right key', async () => {
    const revoked = await seedPartner(ctx.db)
    const claims = await validClaims(revoked)
    await retryingTransaction(ctx.db, (trx) => revokeCredentials(trx, revoked.clientId, now.toISOString()))
    expectUnauthenticated(await getBrands(bearer(await sign(claims))))
  })
})

describe('a user given a new password', () => {
  const userToken = async (email: string, password: string) => {
    const response = await postLogin({ email, password })
    expect(response.statusCode, response.body).toBe(200)
    return response.json().token as string
  }

  it('loses the tokens of the old password at the very next request; the new one logs in', async () => {
    const email = 'rotating@partner.example'
    await seedUser(ctx.db, other.id, email, USER_PASSWORD)
    const old = await userToken(email, USER_PASSWORD)
    await expectBrandsServed(old)

    await seedUser(ctx.db, other.id, email, `${USER_PASSWORD}-new`)

    expectUnauthenticated(await getBrands(bearer(old)))
    await expectBrandsServed(await userToken(email, `${USER_PASSWORD}-new`))
  })

  it('leaves other users’ tokens and the partner’s client tokens working', async () => {
    const email = 'steady@partner.example'
    await seedUser(ctx.db, other.id, email, USER_PASSWORD)
    const steady = await userToken(email, USER_PASSWORD)
    const client = await login(ctx.app, other)
    await seedUser(ctx.db, other.id, 'changing@partner.example', USER_PASSWORD)
    await seedUser(ctx.db, other.id, 'changing@partner.example', `${USER_PASSWORD}-new`)
    await expectBrandsServed(steady)
    await expectBrandsServed(client)
  })

  it('refuses a user token without the password version (as issued before it was carried)', async () => {
    const email = 'unversioned@partner.example'
    const user = await seedUser(ctx.db, other.id, email, USER_PASSWORD)
    const claims = { ...(await validClaims(other)), sub: `user:${user.id}`, pid: other.id }
    expectUnauthenticated(await getBrands(bearer(await sign(claims))))
  })
})

describe('GET /brands with a token that is not genuine and current', () => {
  it('accepts the reference forgery: current key, kid k2, HS256, valid claims (each attack changes one thing)', async () => {
    await expectBrandsServed(await sign(await validClaims(partner)))
  })

  it('reads the scheme without regard to case (RFC 7235): bearer and BEARER', async () => {
    const token = await login(ctx.app, partner)
    for (const scheme of ['bearer', 'BEARER']) {
      const response = await getBrands({ authorization: `${scheme} ${token}` })
      expect(response.statusCode, scheme).toBe(200)
    }
  })

  const attacks: [string, () => Promise<Record<string, string>>][] = [
    ['no Authorization header', async () => ({})],
    ['a Bearer of garbage', async () => bearer('garbage')],
    ['a Bearer of three garbage segments', async () => bearer('aaaa.bbbb.cccc')],
    ['an empty Bearer', async () => ({ authorization: 'Bearer ' })],
    [
      'a valid token without the Bearer scheme',
      async () => ({ authorization: await login(ctx.app, partner) }),
    ],
    [
      'a valid token under another scheme',
      async () => ({ authorization: `Token ${await login(ctx.app, partner)}` }),
    ],
    [
      'valid credentials as Authorization: Basic',
      async () => ({ authorization: `Basic ${pairOf(partner)}` }),
    ],
    ['valid credentials as X-CREDENTIALS', async () => ({ 'x-credentials': pairOf(partner) })],
    [
      'an alg "none" token',
      async () => {
        const header = b64url({ alg: 'none', typ: 'JWT', kid: TEST_JWT_KEYS.current.kid })
        return bearer(`${header}.${b64url(await validClaims(partner))}.`)
      },
    ],
    [
      'a token signed with a wrong key',
      async () => bearer(await sign(await validClaims(partner), { secret: new Uint8Array(randomBytes(32)) })),
    ],
    [
      'a token with a flipped signature byte',
      async () => {
        const [header, payload, signature = ''] = (await sign(await validClaims(partner))).split('.')
        const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1)
        return bearer(`${header}.${payload}.${flipped}`)
      },
    ],
    [
      'a token with a tampered payload',
      async () => {
        const [header, , signature] = (await sign(await validClaims(partner))).split('.')
        const claims = { ...(await validClaims(partner)), pid: other.id }
        return bearer(`${header}.${b64url(claims)}.${signature}`)
      },
    ],
    [
      'an expired token',
      async () =>
        bearer(
          await sign({
            ...(await validClaims(partner)),
            iat: nowSeconds() - TTL_SECONDS - 1,
            exp: nowSeconds() - 1,
          }),
        ),
    ],
    [
      'a token without exp',
      async () => {
        const { exp: _exp, ...claims } = await validClaims(partner)
        return bearer(await sign(claims))
      },
    ],
    [
      'a token without sub',
      async () => {
        const { sub: _sub, ...claims } = await validClaims(partner)
        return bearer(await sign(claims))
      },
    ],
    [
      'a token without aud (as issued before tokens named their environment)',
      async () => {
        const { aud: _aud, ...claims } = await validClaims(partner)
        return bearer(await sign(claims))
      },
    ],
    [
      'a production token, signed with the same key (ids collide across environments)',
      async () => bearer(await sign({ ...(await validClaims(partner)), aud: 'amparo:production' })),
    ],
    [
      'a token with an unknown kid',
      async () => bearer(await sign(await validClaims(partner), { kid: 'k9' })),
    ],
    ['a token without kid', async () => bearer(await sign(await validClaims(partner), { kid: undefined }))],
    [
      'a token whose pid is another partner than its credential’s',
      async () => bearer(await sign({ ...(await validClaims(partner)), pid: other.id })),
    ],
    [
      'a token whose pid is a string',
      async () => bearer(await sign({ ...(await validClaims(partner)), pid: String(partner.id) })),
    ],
    [
      'a token for a credential that does not exist',
      async () => bearer(await sign({ ...(await validClaims(partner)), sub: 'client:999999' })),
    ],
    [
      'a token whose subject is not kind:id',
      async () => bearer(await sign({ ...(await validClaims(partner)), sub: 'admin' })),
    ],
    [
      'an HS512 token signed with the right key',
      async () => bearer(await sign(await validClaims(partner), { alg: 'HS512' })),
    ],
  ]

  it.each(attacks)('answers %s with 401, never 500', async (_name, headers) => {
    expectUnauthenticated(await getBrands(await headers()))
  })
})

describe('signing key rotation', () => {
  it('still accepts tokens signed with the previous key', async () => {
    const token = await sign(await validClaims(partner), {
      secret: TEST_JWT_KEYS.previous.secret,
      kid: TEST_JWT_KEYS.previous.kid,
    })
    await expectBrandsServed(token)
  })

  it('refuses a token signed with the previous key but labelled with the current kid', async () => {
    const token = await sign(await validClaims(partner), {
      secret: TEST_JWT_KEYS.previous.secret,
      kid: TEST_JWT_KEYS.current.kid,
    })
    expectUnauthenticated(await getBrands(bearer(token)))
  })

  it('signs new logins with the current key', async () => {
    const token = await login(ctx.app, other)
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'HS256', kid: TEST_JWT_KEYS.current.kid })
    await expectBrandsServed(token)
  })
})

describe('routes open without a token', () => {
  it.each([['/'], ['/health'], ['/openapi.json'], ['/docs/']])(
    'serves %s without a token, and ignores a bad one',
    async (url) => {
      const anonymous = await ctx.app.inject({ method: 'GET', url })
      expect(anonymous.statusCode).toBe(200)
      const withGarbage = await ctx.app.inject({ method: 'GET', url, headers: bearer('garbage') })
      expect(withGarbage.statusCode).toBe(200)
    },
  )
})

describe('GET /', () => {
  it('answers where to start: name, version and absolute links to the docs, OpenAPI, SDK and health', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/', headers: { host: 'api.example.com' } })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      name: 'Amparo partner API',
      version: (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json().info.version,
      docs: 'http://api.example.com/docs',
      openapi: 'http://api.example.com/openapi.json',
      sdk: 'http://api.example.com/sdk/amparo-client.tgz',
      health: 'http://api.example.com/health',
    })
    for (const link of ['docs', 'openapi', 'health'] as const) {
      const path = new URL(response.json()[link]).pathname
      expect((await ctx.app.inject({ method: 'GET', url: path })).statusCode, link).toBe(200)
    }
  })
})

describe('X-Request-Id', () => {
  const requests: [string, () => Promise<LightMyRequestResponse>][] = [
    ['a 200 from /health', () => ctx.app.inject({ method: 'GET', url: '/health' })],
    ['a 200 from login', () => postLogin({ client_id: other.clientId, client_secret: other.clientSecret })],
    ['a 401 from login', () => postLogin({ client_id: other.clientId, client_secret: 'nope' })],
    ['a 422 from login', () => postLogin({})],
    [
      'a 400 from a body that is not JSON',
      () =>
        ctx.app.inject({
          method: 'POST',
          url: '/auth/login',
          headers: { 'content-type': 'application/json' },
          payload: '{"client_id":',
        }),
    ],
    [
      'a 415 from a body that is not JSON',
      () =>
        ctx.app.inject({
          method: 'POST',
          url: '/auth/login',
          headers: { 'content-type': 'text/plain' },
          payload: 'client_id=x',
        }),
    ],
    ['a 401 from a protected route', () => getBrands()],
    ['a 404 from an unknown route', () => ctx.app.inject({ method: 'GET', url: '/nowhere' })],
  ]

  it.each(requests)('is set on %s', async (_name, send) => {
    const response = await send()
    expect(response.statusCode).not.toBe(500)
    expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/)
  })

  it('echoes a sane id sent by the caller and replaces an unsafe one', async () => {
    const echoed = await ctx.app.inject({
      method: 'GET',
      url: '/brands',
      headers: { 'x-request-id': 'abc-123.x:y' },
    })
    expect(echoed.headers['x-request-id']).toBe('abc-123.x:y')
    const replaced = await ctx.app.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'bad id\twith<script>' },
    })
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it.each([
    '4111111111111111',
    '4111-1111-1111-1111',
    '4111.1111.1111.1111',
    '4111:1111:1111:1111',
    '4111 1111 1111 1111',
    'pay-4111--1111-1111-1111-x',
    'x4242424242424242y',
    // Longer than a card number: one could start anywhere in it.
    '2026-12-07-0001234567890',
  ])('replaces an id holding a card number, separators or not: %s', async (sent) => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': sent },
    })
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it.each([
    'order-2026-11-26-a1234567890',
    // 17 digits apart from letters, failing the Luhn check: no card number.
    'order-2026-12-07-000123456',
    '4111111111111112',
  ])('keeps an id whose digit runs are no card number: %s', async (sent) => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': sent },
    })
    expect(response.headers['x-request-id']).toBe(sent)
  })
})

// Runs last: the captured text then holds every request of this file, failed logins and token attacks included.
describe('logs', () => {
  it('never contain client secrets, passwords, credential headers or tokens', async () => {
    const p = await seedPartner(ctx.db)
    await seedUser(ctx.db, p.id, 'logs@partner.example', USER_PASSWORD)
    const pair = pairOf(p)
    const logins = [
      await postLogin({ client_id: p.clientId, client_secret: p.clientSecret }),
      await postLogin(undefined, { 'x-credentials': pair }),
      await postLogin(undefined, { authorization: `Basic ${pair}` }),
      await postLogin({ email: 'logs@partner.example', password: USER_PASSWORD }),
    ]
    const tokens = logins.map((response) => {
      expect(response.statusCode, response.body).toBe(200)
      return response.json().token as string
    })
    for (const token of tokens) await expectBrandsServed(token)
    // Failed attempts are logged too.
    expectUnauthenticated(
      await postLogin({ client_id: p.clientId, client_secret: `${p.clientSecret}-wrong` }),
    )
    expectUnauthenticated(await getBrands(bearer(`${tokens[0]}x`)))

    const text = logLines.join('')
    // The capture works: the requests above are in it.
    expect(text).toContain('/auth/login')
    expect(text).toContain('/brands')
    expect(text).toContain(logins[0]?.headers['x-request-id'])

    const secrets = [
      p.clientSecret,
      `${p.clientSecret}-wrong`,
      pair,
      USER_PASSWORD,
      partner.clientSecret,
      pairOf(partner),
      other.clientSecret,
      pairOf(other),
    ]
    for (const token of tokens) secrets.push(token, token.split('.')[2] as string)
    for (const secret of secrets) expect(text).not.toContain(secret)
  })

  /** The URL the request line of `response`'s request logged. */
  const loggedUrl = (response: { headers: Record<string, unknown> }) =>
    logLines
      .map((l) => JSON.parse(l))
      .find((entry) => entry.reqId === response.headers['x-request-id'] && entry.msg === 'request completed')
      ?.url

  it('logs one line per request with its id, method, path, status and time', async () => {
    const token = await login(ctx.app, partner)
    const response = await getBrands(bearer(token))
    const requestId = response.headers['x-request-id']
    const lines = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.reqId === requestId)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ msg: 'request completed', method: 'GET', url: '/brands', status: 200 })
    expect(lines[0].ms).toEqual(expect.any(Number))
  })

  it('logs only the values of the query parameters the route declares, whatever the others are named', async () => {
    const secret = randomBytes(16).toString('hex')
    const login = await ctx.app.inject({
      method: 'POST',
      url: `/auth/login?client_id=test_x&client_secret=${secret}&Password=${secret}`,
    })
    const list = await ctx.app.inject({
      url: `/subscriptions?page=2&filter%5Bstatus%5D=pago&access_token=${secret}&number=${secret}`,
    })
    expect(loggedUrl(login)).toBe(
      '/auth/login?client_id=[redacted]&client_secret=[redacted]&Password=[redacted]',
    )
    expect(loggedUrl(list)).toBe(
      '/subscriptions?page=2&filter%5Bstatus%5D=pago&access_token=[redacted]&number=[redacted]',
    )
    expect(logLines.join('\n')).not.toContain(secret)
  })

  it('censors card numbers and tokens wherever they are in the URL, and in the 404 it answers', async () => {
    const token = await login(ctx.app, partner)
    const card = '4111-1111-1111-1111'
    const inPath = await ctx.app.inject({ url: `/x/4111111111111111/${token}?4111111111111111` })
    expect(inPath.statusCode).toBe(404)
    expect(inPath.json()).toEqual(
      expectedError(inPath, 'not_found', { message: 'Route GET /x/[redacted]/[redacted] not found.' }),
    )
    expect(loggedUrl(inPath)).toBe('/x/[redacted]/[redacted]?[redacted]')
    const inFilter = await ctx.app.inject({
      url: `/subscriptions?filter%5Bcustomer_document%5D=${card}`,
      headers: bearer(token),
    })
    expect(loggedUrl(inFilter)).toBe('/subscriptions?filter%5Bcustomer_document%5D=[redacted]')
    // A document is no card: 11 or 14 digits that fail the Luhn check are kept.
    const documents = await ctx.app.inject({ url: '/customers/11222333000181', headers: bearer(token) })
    expect(loggedUrl(documents)).toBe('/customers/11222333000181')
    const text = logLines.join('\n')
    for (const secret of ['4111111111111111', card, token]) expect(text).not.toContain(secret)
  })

  it('censors credential fields wherever a handler logs them', async () => {
    const secret = randomBytes(16).toString('hex')
    ctx.app.log.info({ client_secret: secret, password: secret, token: secret }, 'top-level probe')
    ctx.app.log.info(
      {
        body: { client_id: 'test_visible', client_secret: secret, password: secret },
        reply: { token: secret, access_token: secret },
      },
      'redaction probe',
    )
    const topLevel = logLines.find((line) => line.includes('top-level probe'))
    expect(topLevel).toBeDefined()
    expect(topLevel).not.toContain(secret)
    const probe = logLines.find((line) => line.includes('redaction probe'))
    expect(probe).toBeDefined()
    expect(probe).not.toContain(secret)
    const entry = JSON.parse(probe as string)
    expect(entry.body).toEqual({
      client_id: 'test_visible',
      client_secret: '[redacted]',
      password: '[redacted]',
    })
    expect(entry.reply).toEqual({ token: '[redacted]', access_token: '[redacted]' })
  })
})
