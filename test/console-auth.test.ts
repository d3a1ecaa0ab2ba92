import { URI } from 'otpauth'
import { beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { createOperator } from '../src/modules/operators/operator.service.js'
import { openTotpSecret } from '../src/modules/operators/totp.js'
import { CONSOLE_ORIGIN, type ConsoleTestContext, consoleApp } from './helpers/console.js'

// The console's sign-in, sessions and roles (README, Operator console), through its HTTP API.

const MINUTE = 60_000
let now = new Date('2026-11-27T12:00:00.000Z')
const clock = { now: () => now }
const PASSWORD = 'a long enough password'

/** Every answer of the file, to look for secrets in afterwards. */
const bodies: string[] = []

function client(ctx: ConsoleTestContext) {
  return async (options: {
    method: 'GET' | 'POST' | 'DELETE'
    url: string
    body?: object
    cookie?: string
    origin?: string | null
  }) => {
    const headers: Record<string, string> = {}
    if (options.cookie) headers.cookie = options.cookie
    const origin = options.origin === undefined ? CONSOLE_ORIGIN : options.origin
    if (origin) headers.origin = origin
    const response = await ctx.console.inject({
      method: options.method,
      url: options.url,
      headers,
      ...(options.body && { payload: options.body }),
    })
    bodies.push(response.body, JSON.stringify(response.headers))
    return response
  }
}

type Response = Awaited<ReturnType<ReturnType<typeof client>>>

const cookieOf = (response: Response): string => {
  const header = String(response.headers['set-cookie'])
  const token = /amparo_console=([^;]*)/.exec(header)?.[1]
  expect(token, header).toBeTruthy()
  return `amparo_console=${token}`
}

async function newOperator(ctx: ConsoleTestContext, email: string, role = 'viewer') {
  return createOperator(
    ctx.db,
    { email, role, password: PASSWORD },
    { actor: { cli: 'test' }, ip: null, now },
  )
}

/** The current code of an enrolment's otpauth:// address, at the test clock. */
function codeAt(otpauthUrl: string, at: Date): string {
  return URI.parse(otpauthUrl).generate({ timestamp: at.getTime() })
}

// Every sign-in costs a deliberately slow scrypt hash: room for a busy machine.
describe('in test (TOTP optional)', { timeout: 120_000 }, () => {
  const ctx = consoleApp({ clock })
  const call = client(ctx)
  const signIn = (email: string, password = PASSWORD, extra: object = {}) =>
    call({ method: 'POST', url: '/api/session', body: { email, password, ...extra } })

  beforeAll(async () => {
    await newOperator(ctx, 'ana@amparo.test', 'adjuster')
  })

  it('signs in with a password alone; the cookie is HttpOnly, SameSite=Strict, Path=/, not Secure', async () => {
    const response = await signIn('ANA@amparo.test ')
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({
      stage: 'done',
      // A password of its own (given at creation, as `operator create --password` does): nothing to replace.
      operator: {
        id: expect.any(Number),
        email: 'ana@amparo.test',
        role: 'adjuster',
        password_change_required: false,
        totp_enrolled: false,
      },
      // The console shows every time in the service's zone, which it learns here.
      time_zone: ctx.config.timeZone,
    })
    const setCookie = String(response.headers['set-cookie'])
    expect(setCookie).toMatch(/HttpOnly/)
    expect(setCookie).toMatch(/SameSite=Strict/)
    expect(setCookie).toMatch(/Path=\//)
    expect(setCookie).not.toMatch(/Secure/)
    const session = await call({ method: 'GET', url: '/api/session', cookie: cookieOf(response) })
    expect(session.json()).toMatchObject({
      operator: { email: 'ana@amparo.test' },
      time_zone: ctx.config.timeZone,
    })
  })

  it('answers one 401 for a wrong password, an unknown e-mail and a disabled operator', async () => {
    const disabled = await newOperator(ctx, 'gone@amparo.test')
    const admin = await ctx.loginAs('admin')
    const off = await ctx.console.inject({
      method: 'POST',
      url: `/api/operators/${disabled.operator.id}/disable`,
      headers: admin,
    })
    expect(off.statusCode, off.body).toBe(200)
    for (const [email, password] of [
      ['ana@amparo.test', 'wrong password!!'],
      ['nobody@amparo.test', PASSWORD],
      ['gone@amparo.test', PASSWORD],
    ] as const) {
      const response = await signIn(email, password)
      expect(response.statusCode).toBe(401)
      expect(response.json()).toMatchObject({
        code: 'invalid_credentials',
        message: 'Wrong e-mail or password.',
      })
      expect(response.headers['set-cookie']).toBeUndefined()
      expect(response.headers['www-authenticate']).toMatch(/^Cookie realm=/)
    }
  })

  it('enrols TOTP on request, then asks for a code at every sign-in; a code is good once', async () => {
    await newOperator(ctx, 'totp@amparo.test')
    const first = await signIn('totp@amparo.test', PASSWORD, { enroll: true })
    expect(first.statusCode).toBe(200)
    const { stage, otpauth_url, qr_svg } = first.json()
    expect(stage).toBe('enroll')
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/Amparo:totp%40amparo\.test\?/)
    expect(qr_svg).toMatch(/^<svg/)
    const pending = cookieOf(first)
    // Not signed in until the code is given.
    expect((await call({ method: 'GET', url: '/api/session', cookie: pending })).statusCode).toBe(401)
    const code = codeAt(otpauth_url, now)
    const done = await call({ method: 'POST', url: '/api/session/totp', cookie: pending, body: { code } })
    expect(done.statusCode, done.body).toBe(200)
    expect(done.json()).toMatchObject({ stage: 'done', operator: { email: 'totp@amparo.test' } })
    expect((await call({ method: 'GET', url: '/api/session', cookie: pending })).statusCode).toBe(200)

    const second = await signIn('totp@amparo.test')
    expect(second.json()).toEqual({ stage: 'totp' })
    const again = cookieOf(second)
    const replayed = await call({ method: 'POST', url: '/api/session/totp', cookie: again, body: { code } })
    expect(replayed.statusCode).toBe(401)
    expect(replayed.json().code).toBe('invalid_credentials')
    now = new Date(now.getTime() + 30_000)
    const fresh = codeAt(otpauth_url, now)
    const ok = await call({ method: 'POST', url: '/api/session/totp', cookie: again, body: { code: fresh } })
    expect(ok.statusCode, ok.body).toBe(200)
  })

  it('ends a sign-in after 5 wrong codes', async () => {
    const response = await signIn('totp@amparo.test')
    const cookie = cookieOf(response)
    for (let i = 0; i < 5; i++) {
      const wrong = await call({ method: 'POST', url: '/api/session/totp', cookie, body: { code: '000000' } })
      expect(wrong.json().code).toBe('invalid_credentials')
    }
    const after = await call({ method: 'POST', url: '/api/session/totp', cookie, body: { code: '123456' } })
    expect(after.statusCode).toBe(401)
    expect(after.json().code).toBe('unauthenticated')
  })

  it('ends a session after 30 minutes idle', async () => {
    const cookie = cookieOf(await signIn('ana@amparo.test'))
    now = new Date(now.getTime() + 29 * MINUTE)
    expect((await call({ method: 'GET', url: '/api/session', cookie })).statusCode).toBe(200)
    now = new Date(now.getTime() + 29 * MINUTE)
    expect((await call({ method: 'GET', url: '/api/session', cookie })).statusCode).toBe(200)
    now = new Date(now.getTime() + 30 * MINUTE)
    const expired = await call({ method: 'GET', url: '/api/session', cookie })
    expect(expired.statusCode).toBe(401)
    expect(expired.json().code).toBe('unauthenticated')
    // A cookie session, not a bearer token: the challenge says so (docs/decisions.md).
    expect(expired.headers['www-authenticate']).toBe(
      'Cookie realm="Amparo console", form-action="/api/session", cookie-name="amparo_console"',
    )
  })

  it('ends a session 12 hours after sign-in, however active', async () => {
    const signedInAt = now.getTime()
    const cookie = cookieOf(await signIn('ana@amparo.test'))
    for (let t = 20; t < 12 * 60; t += 20) {
      now = new Date(signedInAt + t * MINUTE)
      expect((await call({ method: 'GET', url: '/api/session', cookie })).statusCode, `${t} min`).toBe(200)
    }
    now = new Date(signedInAt + 12 * 60 * MINUTE)
    expect((await call({ method: 'GET', url: '/api/session', cookie })).statusCode).toBe(401)
  })

  it('signs out on the server: the cookie no longer opens anything', async () => {
    const cookie = cookieOf(await signIn('ana@amparo.test'))
    const out = await call({ method: 'DELETE', url: '/api/session', cookie })
    expect(out.statusCode).toBe(204)
    expect(String(out.headers['set-cookie'])).toMatch(/amparo_console=;/)
    expect((await call({ method: 'GET', url: '/api/session', cookie })).statusCode).toBe(401)
  })

  it('refuses a state-changing request from another origin, or without one', async () => {
    const cookie = cookieOf(await signIn('ana@amparo.test'))
    for (const origin of ['https://evil.example', 'null', null, 'http://localhost:81']) {
      const login = await call({
        method: 'POST',
        url: '/api/session',
        origin,
        body: { email: 'ana@amparo.test', password: PASSWORD },
      })
      expect(login.statusCode, String(origin)).toBe(403)
      expect(login.json().code).toBe('origin_refused')
      const out = await call({ method: 'DELETE', url: '/api/session', cookie, origin })
      expect(out.json().code).toBe('origin_refused')
    }
    // Reads need no Origin (a top-level navigation sends none), and the session is still open.
    expect((await call({ method: 'GET', url: '/api/session', cookie, origin: null })).statusCode).toBe(200)
  })

  it('enforces roles on the server: viewer and adjuster get 403 on an admin endpoint', async () => {
    for (const role of ['viewer', 'adjuster'] as const) {
      const headers = await ctx.loginAs(role)
      const list = await ctx.console.inject({ method: 'GET', url: '/api/operators', headers })
      expect(list.statusCode).toBe(403)
      expect(list.json().code).toBe('forbidden')
      const create = await ctx.console.inject({
        method: 'POST',
        url: '/api/operators',
        headers,
        payload: { email: 'x@amparo.test', role: 'admin' },
      })
      expect(create.statusCode).toBe(403)
    }
    const admin = await ctx.loginAs('admin')
    const list = await ctx.console.inject({ method: 'GET', url: '/api/operators', headers: admin })
    expect(list.statusCode).toBe(200)
    bodies.push(list.body)
    expect(list.json().data.length).toBeGreaterThan(3)
  })

  it('audits sign-ins, failed sign-ins (with why, naming no actor) and sign-outs', async () => {
    const { operator } = await newOperator(ctx, 'audited@amparo.test')
    const rows = async () =>
      (
        await ctx.db
          .selectFrom('audit_log')
          .select(['actor', 'actor_label', 'action', 'record_type', 'record_id', 'after', 'ip'])
          .where((eb) =>
            eb.or([
              eb('actor_label', '=', 'audited@amparo.test'),
              eb('actor_label', '=', 'ghost@amparo.test'),
            ]),
          )
          .orderBy('id')
          .execute()
      ).map((row) => ({ ...row, after: row.after === null ? null : JSON.parse(row.after) }))
    const id = String(operator.id)

    expect((await signIn('audited@amparo.test', 'wrong password!!')).statusCode).toBe(401)
    expect((await signIn('Ghost@amparo.test')).statusCode).toBe(401)
    const enrolling = await signIn('audited@amparo.test', PASSWORD, { enroll: true })
    const cookie = cookieOf(enrolling)
    const badCode = await call({ method: 'POST', url: '/api/session/totp', cookie, body: { code: '000000' } })
    expect(badCode.statusCode).toBe(401)
    const code = codeAt(enrolling.json().otpauth_url, now)
    expect(
      (await call({ method: 'POST', url: '/api/session/totp', cookie, body: { code } })).statusCode,
    ).toBe(200)
    expect((await call({ method: 'DELETE', url: '/api/session', cookie })).statusCode).toBe(204)

    const failed = { actor: null, action: 'session.sign_in_failed', record_type: 'operator', ip: '127.0.0.1' }
    const signedIn = {
      actor: operator.id,
      actor_label: 'audited@amparo.test',
      record_type: 'operator',
      record_id: id,
    }
    expect(await rows()).toEqual([
      { ...failed, actor_label: 'audited@amparo.test', record_id: id, after: { reason: 'wrong_password' } },
      { ...failed, actor_label: 'ghost@amparo.test', record_id: '', after: { reason: 'unknown_email' } },
      { ...failed, actor_label: 'audited@amparo.test', record_id: id, after: { reason: 'wrong_code' } },
      {
        ...signedIn,
        action: 'operator.enroll_totp',
        after: expect.objectContaining({ totp_enrolled: true }),
        ip: '127.0.0.1',
      },
      { ...signedIn, action: 'session.sign_in', after: { second_factor: 'totp' }, ip: '127.0.0.1' },
      { ...signedIn, action: 'session.sign_out', after: null, ip: '127.0.0.1' },
    ])
    // A sign-in with the password alone says so; a sign-out without a session records nothing.
    const plain = await newOperator(ctx, 'plain@amparo.test')
    expect((await signIn('plain@amparo.test')).statusCode).toBe(200)
    expect(
      (await call({ method: 'DELETE', url: '/api/session', cookie: 'amparo_console=gone' })).statusCode,
    ).toBe(204)
    const plainRows = await ctx.db
      .selectFrom('audit_log')
      .select(['action', 'after'])
      .where('record_id', '=', String(plain.operator.id))
      .orderBy('id')
      .execute()
    expect(plainRows).toEqual([
      { action: 'operator.create', after: expect.any(String) },
      { action: 'session.sign_in', after: '{"second_factor":"none"}' },
    ])
  })

  it('keeps TOTP seeds encrypted (bound to their operator); a seed stored in clear is sealed at the next sign-in', async () => {
    const key = ctx.config.consoleSecretKey
    const { operator } = await newOperator(ctx, 'sealed@amparo.test')
    const enrolling = await signIn('sealed@amparo.test', PASSWORD, { enroll: true })
    const seed = URI.parse(enrolling.json().otpauth_url).secret.base32
    const stored = async () =>
      (
        await ctx.db
          .selectFrom('operators')
          .select('totp_secret')
          .where('id', '=', operator.id)
          .executeTakeFirstOrThrow()
      ).totp_secret ?? ''
    const sealed = await stored()
    expect(sealed).toMatch(/^v1\./)
    expect(sealed).not.toContain(seed)
    expect(openTotpSecret(sealed, operator.id, key)).toBe(seed)
    expect(() => openTotpSecret(sealed, operator.id + 1, key)).toThrow()
    expect(() => openTotpSecret(sealed, operator.id, `${key}x`)).toThrow()

    // As before encryption: the seed in clear still works, and is sealed once it did.
    await retryingTransaction(ctx.db, (trx) =>
      trx.updateTable('operators').set({ totp_secret: seed }).where('id', '=', operator.id).execute(),
    )
    const cookie = cookieOf(enrolling)
    const code = codeAt(enrolling.json().otpauth_url, now)
    expect(
      (await call({ method: 'POST', url: '/api/session/totp', cookie, body: { code } })).statusCode,
    ).toBe(200)
    expect(await stored()).toMatch(/^v1\./)
    expect(openTotpSecret(await stored(), operator.id, key)).toBe(seed)
  })

  it('never answers a password hash or a TOTP seed', async () => {
    const rows = await ctx.db.selectFrom('operators').select(['id', 'password_hash', 'totp_secret']).execute()
    const seeds = rows.flatMap((r) =>
      r.totp_secret ? [r.totp_secret, openTotpSecret(r.totp_secret, r.id, ctx.config.consoleSecretKey)] : [],
    )
    const secrets = [...rows.map((r) => r.password_hash), ...seeds]
    expect(secrets.length).toBeGreaterThan(rows.length)
    // The one answer allowed to carry a seed is its enrolment's, once.
    const everything = bodies.filter((body) => !body.includes('"stage":"enroll"')).join('\n')
    for (const secret of secrets) expect(everything).not.toContain(secret)
    expect(everything).not.toMatch(/password_hash|totp_secret|scrypt\$/)
  })
})

describe('sign-in limits', { timeout: 120_000 }, () => {
  const ctx = consoleApp({ clock })
  const call = client(ctx)

  it('answers 429 after 10 failed sign-ins of one account, even with the right password', async () => {
    await newOperator(ctx, 'limited@amparo.test')
    for (let i = 0; i < 10; i++) {
      const wrong = await call({
        method: 'POST',
        url: '/api/session',
        body: { email: 'limited@amparo.test', password: `wrong password ${i}` },
      })
      expect(wrong.statusCode).toBe(401)
    }
    const refused = await call({
      method: 'POST',
      url: '/api/session',
      body: { email: 'limited@amparo.test', password: PASSWORD },
    })
    expect(refused.statusCode).toBe(429)
    expect(refused.json().code).toBe('rate_limited')
    expect(refused.headers['retry-after']).toBeDefined()
  })

  it('counts wrong TOTP codes against the account as wrong passwords: 6 + 4, then 429 even with the right code', async () => {
    await newOperator(ctx, 'coded@amparo.test')
    const signIn = (password = PASSWORD, extra: object = {}) =>
      call({ method: 'POST', url: '/api/session', body: { email: 'coded@amparo.test', password, ...extra } })
    const enrolling = await signIn(PASSWORD, { enroll: true })
    const url = enrolling.json().otpauth_url
    const enrolled = await call({
      method: 'POST',
      url: '/api/session/totp',
      cookie: cookieOf(enrolling),
      body: { code: codeAt(url, now) },
    })
    expect(enrolled.statusCode, enrolled.body).toBe(200)

    for (let i = 0; i < 6; i++) expect((await signIn(`wrong password ${i}`)).statusCode).toBe(401)
    const halfOpen = await signIn()
    expect(halfOpen.json()).toEqual({ stage: 'totp' })
    const cookie = cookieOf(halfOpen)
    for (let i = 0; i < 4; i++) {
      const wrong = await call({ method: 'POST', url: '/api/session/totp', cookie, body: { code: '000000' } })
      expect(wrong.statusCode).toBe(401)
    }
    now = new Date(now.getTime() + 30_000)
    const right = await call({
      method: 'POST',
      url: '/api/session/totp',
      cookie,
      body: { code: codeAt(url, now) },
    })
    expect(right.statusCode, right.body).toBe(429)
    expect(right.json().code).toBe('rate_limited')
    expect(right.headers['retry-after']).toBeDefined()
    expect((await signIn()).statusCode).toBe(429)
  })
})

describe('in production', { timeout: 120_000 }, () => {
  const ctx = consoleApp({ clock, config: { env: 'production' }, gateway: null })
  const call = client(ctx)

  it('forces TOTP enrolment at the first sign-in, sets a Secure cookie, then asks for the code', async () => {
    await newOperator(ctx, 'prod@amparo.test', 'admin')
    const first = await call({
      method: 'POST',
      url: '/api/session',
      body: { email: 'prod@amparo.test', password: PASSWORD },
    })
    expect(first.json().stage).toBe('enroll')
    expect(String(first.headers['set-cookie'])).toMatch(/; Secure/)
    const cookie = cookieOf(first)
    const wrong = await call({ method: 'POST', url: '/api/session/totp', cookie, body: { code: '12345x' } })
    expect(wrong.statusCode).toBe(401)
    const code = codeAt(first.json().otpauth_url, now)
    const done = await call({ method: 'POST', url: '/api/session/totp', cookie, body: { code } })
    expect(done.statusCode, done.body).toBe(200)

    now = new Date(now.getTime() + 60_000)
    const next = await call({
      method: 'POST',
      url: '/api/session',
      body: { email: 'prod@amparo.test', password: PASSWORD },
    })
    expect(next.json()).toEqual({ stage: 'totp' })
  })
})
