import { URI } from 'otpauth'
import { describe, expect, it } from 'vitest'
import { CONSOLE_ORIGIN, type ConsoleTestContext, consoleApp } from './helpers/console.js'

// An operator's own password (README, Operator console): a one-time password opens nothing but its
// change, every operator changes its own (the current password and, with TOTP, a code), and an
// admin resets a password and a second factor apart. Through the console's HTTP API.

let now = new Date('2026-12-07T12:00:00.000Z')
const clock = { now: () => now }
const NEW_PASSWORD = 'a password of my own'

type Call = { method: 'GET' | 'POST'; url: string; body?: object; cookie?: string }

function client(ctx: ConsoleTestContext) {
  return (options: Call) =>
    ctx.console.inject({
      method: options.method,
      url: options.url,
      headers: { origin: CONSOLE_ORIGIN, ...(options.cookie && { cookie: options.cookie }) },
      ...(options.body && { payload: options.body }),
    })
}

const cookieOf = (response: { headers: Record<string, unknown> }): string => {
  const token = /amparo_console=([^;]*)/.exec(String(response.headers['set-cookie']))?.[1]
  expect(token).toBeTruthy()
  return `amparo_console=${token}`
}

const codeAt = (otpauthUrl: string, at: Date) => URI.parse(otpauthUrl).generate({ timestamp: at.getTime() })

/** An operator an admin creates in the console: its id and one-time password. */
async function created(ctx: ConsoleTestContext, email: string, role = 'admin') {
  const response = await ctx.console.inject({
    method: 'POST',
    url: '/api/operators',
    headers: await ctx.loginAs('admin'),
    payload: { email, role },
  })
  expect(response.statusCode, response.body).toBe(201)
  const { operator, password } = response.json()
  expect(operator.password_change_required).toBe(true)
  return { id: operator.id as number, password: password as string }
}

// Every sign-in and change costs a deliberately slow scrypt hash: room for a busy machine.
describe('a one-time password', { timeout: 120_000 }, () => {
  const ctx = consoleApp({ clock })
  const call = client(ctx)
  const signIn = (email: string, password: string) =>
    call({ method: 'POST', url: '/api/session', body: { email, password } })
  const change = (cookie: string, body: object) =>
    call({ method: 'POST', url: '/api/session/password', cookie, body })

  it('opens nothing but its own change, which then opens everything', async () => {
    const { id, password } = await created(ctx, 'nova@amparo.test')
    const first = await signIn('nova@amparo.test', password)
    expect(first.statusCode, first.body).toBe(200)
    expect(first.json()).toMatchObject({ stage: 'done', operator: { password_change_required: true } })
    const cookie = cookieOf(first)
    const elsewhere = await signIn('nova@amparo.test', password)
    const otherCookie = cookieOf(elsewhere)

    // The server refuses the rest, whatever the screen shows: reads and writes alike.
    for (const attempt of [
      { method: 'GET' as const, url: '/api/operators' },
      { method: 'GET' as const, url: '/api/claims' },
      { method: 'POST' as const, url: '/api/operators', body: { email: 'x@amparo.test', role: 'viewer' } },
    ]) {
      const refused = await call({ ...attempt, cookie })
      expect(refused.statusCode, attempt.url).toBe(403)
      expect(refused.json()).toMatchObject({
        code: 'password_change_required',
        message: 'Replace the one-time password first.',
      })
    }
    const session = await call({ method: 'GET', url: '/api/session', cookie })
    expect(session.statusCode).toBe(200)
    expect(session.json().operator).toEqual({
      id,
      email: 'nova@amparo.test',
      role: 'admin',
      password_change_required: true,
      totp_enrolled: false,
    })

    // Refusals change nothing: a wrong current password, a short or unchanged new one.
    const wrong = await change(cookie, { current_password: 'not the one', new_password: NEW_PASSWORD })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json().code).toBe('invalid_credentials')
    const short = await change(cookie, { current_password: password, new_password: 'short' })
    expect(short.statusCode).toBe(422)
    expect(short.json().errors).toEqual({ new_password: ['The password must be 12 to 200 characters.'] })
    const same = await change(cookie, { current_password: password, new_password: password })
    expect(same.json().errors).toEqual({
      new_password: ['The new password must differ from the current one.'],
    })

    const changed = await change(cookie, { current_password: password, new_password: NEW_PASSWORD })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json()).toEqual({
      operator: {
        id,
        email: 'nova@amparo.test',
        role: 'admin',
        password_change_required: false,
        totp_enrolled: false,
      },
      time_zone: ctx.config.timeZone,
    })
    expect((await call({ method: 'GET', url: '/api/operators', cookie })).statusCode).toBe(200)
    // The session that changed it stays; the operator's other one ended.
    expect((await call({ method: 'GET', url: '/api/session', cookie: otherCookie })).statusCode).toBe(401)

    expect((await signIn('nova@amparo.test', password)).statusCode).toBe(401)
    const again = await signIn('nova@amparo.test', NEW_PASSWORD)
    expect(again.json()).toMatchObject({ stage: 'done', operator: { password_change_required: false } })

    const audit = await ctx.db
      .selectFrom('audit_log')
      .select(['actor', 'before', 'after'])
      .where('action', '=', 'operator.change_password')
      .where('record_id', '=', String(id))
      .execute()
    expect(audit).toHaveLength(1)
    expect(audit[0]?.actor).toBe(id)
    expect(JSON.parse(audit[0]?.before ?? '{}').password_change_required).toBe(true)
    expect(JSON.parse(audit[0]?.after ?? '{}').password_change_required).toBe(false)
    for (const secret of [password, NEW_PASSWORD]) expect(JSON.stringify(audit)).not.toContain(secret)
  })

  it('is replaced without a code right after the sign-in’s code, where TOTP is enrolled', async () => {
    const { password } = await created(ctx, 'dupla@amparo.test', 'viewer')
    const enrolling = await call({
      method: 'POST',
      url: '/api/session',
      body: { email: 'dupla@amparo.test', password, enroll: true },
    })
    const cookie = cookieOf(enrolling)
    const code = codeAt(enrolling.json().otpauth_url, now)
    const done = await call({ method: 'POST', url: '/api/session/totp', cookie, body: { code } })
    expect(done.json().operator).toMatchObject({ password_change_required: true, totp_enrolled: true })
    expect((await call({ method: 'GET', url: '/api/claims', cookie })).statusCode).toBe(403)
    const changed = await change(cookie, { current_password: password, new_password: NEW_PASSWORD })
    expect(changed.statusCode, changed.body).toBe(200)
    expect((await call({ method: 'GET', url: '/api/claims', cookie })).statusCode).toBe(200)
  })
})

describe('changing one’s own password', { timeout: 120_000 }, () => {
  const ctx = consoleApp({ clock })
  const call = client(ctx)
  const change = (cookie: string, body: object) =>
    call({ method: 'POST', url: '/api/session/password', cookie, body })

  it('asks the current password and, with TOTP enrolled, a fresh code', async () => {
    const { password } = await created(ctx, 'totp@amparo.test', 'adjuster')
    const enrolling = await call({
      method: 'POST',
      url: '/api/session',
      body: { email: 'totp@amparo.test', password, enroll: true },
    })
    const cookie = cookieOf(enrolling)
    const url = enrolling.json().otpauth_url
    const signInCode = codeAt(url, now)
    await call({ method: 'POST', url: '/api/session/totp', cookie, body: { code: signInCode } })
    expect(
      (await change(cookie, { current_password: password, new_password: NEW_PASSWORD })).statusCode,
    ).toBe(200)

    // A change of its own choosing: the code is asked now.
    const later = 'a third password here'
    const noCode = await change(cookie, { current_password: NEW_PASSWORD, new_password: later })
    expect(noCode.statusCode).toBe(422)
    expect(noCode.json().errors).toEqual({ code: ['The code of the authenticator is required.'] })
    for (const code of ['000000', signInCode]) {
      const wrong = await change(cookie, { current_password: NEW_PASSWORD, new_password: later, code })
      expect(wrong.statusCode, code).toBe(401)
      expect(wrong.json()).toMatchObject({
        code: 'invalid_credentials',
        message: 'Wrong current password or code.',
      })
    }
    now = new Date(now.getTime() + 30_000)
    const fresh = codeAt(url, now)
    const wrongPassword = await change(cookie, {
      current_password: password,
      new_password: later,
      code: fresh,
    })
    expect(wrongPassword.statusCode).toBe(401)
    const ok = await change(cookie, { current_password: NEW_PASSWORD, new_password: later, code: fresh })
    expect(ok.statusCode, ok.body).toBe(200)
    // The code was spent on it.
    const replayed = await change(cookie, {
      current_password: later,
      new_password: NEW_PASSWORD,
      code: fresh,
    })
    expect(replayed.statusCode).toBe(401)
  })

  it('needs a session, from the console’s own origin', async () => {
    const body = { current_password: 'x', new_password: NEW_PASSWORD }
    expect((await change('amparo_console=none', body)).json().code).toBe('unauthenticated')
    const headers = await ctx.loginAs('viewer')
    const foreign = await ctx.console.inject({
      method: 'POST',
      url: '/api/session/password',
      headers: { ...headers, origin: 'https://evil.example' },
      payload: body,
    })
    expect(foreign.json().code).toBe('origin_refused')
  })

  it('counts wrong current passwords against the sign-in limit of the account', async () => {
    const { password } = await created(ctx, 'guess@amparo.test', 'viewer')
    const cookie = cookieOf(
      await call({ method: 'POST', url: '/api/session', body: { email: 'guess@amparo.test', password } }),
    )
    for (let i = 0; i < 10; i++) {
      const wrong = await change(cookie, { current_password: `guess ${i}`, new_password: NEW_PASSWORD })
      expect(wrong.statusCode).toBe(401)
    }
    const limited = await change(cookie, { current_password: password, new_password: NEW_PASSWORD })
    expect(limited.statusCode).toBe(429)
    expect(limited.json().code).toBe('rate_limited')
    const signIn = await call({
      method: 'POST',
      url: '/api/session',
      body: { email: 'guess@amparo.test', password },
    })
    expect(signIn.statusCode).toBe(429)
  })
})

describe('an admin’s resets, apart', { timeout: 120_000 }, () => {
  const ctx = consoleApp({ clock })
  const call = client(ctx)

  it('a new password keeps the second factor; clearing the second factor keeps the password; each ends the sessions', async () => {
    const { id, password } = await created(ctx, 'reset@amparo.test', 'viewer')
    const enrolling = await call({
      method: 'POST',
      url: '/api/session',
      body: { email: 'reset@amparo.test', password, enroll: true },
    })
    const cookie = cookieOf(enrolling)
    const url = enrolling.json().otpauth_url
    await call({ method: 'POST', url: '/api/session/totp', cookie, body: { code: codeAt(url, now) } })
    await call({
      method: 'POST',
      url: '/api/session/password',
      cookie,
      body: { current_password: password, new_password: NEW_PASSWORD },
    })

    const admin = await ctx.loginAs('admin')
    const adjuster = await ctx.loginAs('adjuster')
    for (const action of ['reset-password', 'reset-totp']) {
      const refused = await ctx.console.inject({
        method: 'POST',
        url: `/api/operators/${id}/${action}`,
        headers: adjuster,
      })
      expect(refused.json().code).toBe('forbidden')
    }

    const newPassword = await ctx.console.inject({
      method: 'POST',
      url: `/api/operators/${id}/reset-password`,
      headers: admin,
    })
    expect(newPassword.statusCode, newPassword.body).toBe(200)
    expect(newPassword.json().operator).toMatchObject({ totp_enrolled: true, password_change_required: true })
    expect((await call({ method: 'GET', url: '/api/session', cookie })).statusCode).toBe(401)
    const withCode = await call({
      method: 'POST',
      url: '/api/session',
      body: { email: 'reset@amparo.test', password: newPassword.json().password },
    })
    expect(withCode.json()).toEqual({ stage: 'totp' })

    const cleared = await ctx.console.inject({
      method: 'POST',
      url: `/api/operators/${id}/reset-totp`,
      headers: admin,
    })
    expect(cleared.statusCode, cleared.body).toBe(200)
    expect(cleared.json()).toMatchObject({ id, totp_enrolled: false, password_change_required: true })
    // The half-open sign-in ended with it; the password given stays, with no code asked.
    expect(
      (
        await call({
          method: 'POST',
          url: '/api/session/totp',
          cookie: cookieOf(withCode),
          body: { code: '123456' },
        })
      ).json().code,
    ).toBe('unauthenticated')
    const plain = await call({
      method: 'POST',
      url: '/api/session',
      body: { email: 'reset@amparo.test', password: newPassword.json().password },
    })
    expect(plain.json()).toMatchObject({ stage: 'done', operator: { password_change_required: true } })

    const actions = await ctx.db
      .selectFrom('audit_log')
      .select('action')
      .where('record_id', '=', String(id))
      .where('action', 'like', 'operator.%')
      .orderBy('id')
      .execute()
    expect(actions.map((a) => a.action)).toEqual([
      'operator.create',
      'operator.enroll_totp',
      'operator.change_password',
      'operator.reset_password',
      'operator.reset_totp',
    ])
    const missing = await ctx.console.inject({
      method: 'POST',
      url: '/api/operators/999999/reset-totp',
      headers: admin,
    })
    expect(missing.statusCode).toBe(404)
  })
})
