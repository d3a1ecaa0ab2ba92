import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { inspect } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { AmparoConnectionError, AmparoError, createAmparoClient } from '../../clients/typescript/src/index.js'
import { retryAfterMs } from '../../clients/typescript/src/transport.js'

// A tiny stand-in for the service: each test says how it answers, and sees every request.

interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
  at: number
}
type Handler = (request: Seen, response: ServerResponse) => void

let server: Server
let baseUrl: string
let seen: Seen[] = []
let handle: Handler = () => {}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      }
      seen.push(request)
      handle(request, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise((resolve) => server.close(resolve)))
afterEach(() => {
  seen = []
})

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
}

/** Login answers token `t1`, then `t2`, …; other paths go to `route`. */
function service(route: Handler): Handler {
  let logins = 0
  return (request, res) => {
    if (request.url === '/auth/login') {
      logins += 1
      return json(res, 200, { token: `t${logins}`, access_token: `t${logins}`, token_type: 'Bearer' })
    }
    route(request, res)
  }
}

const client = () => createAmparoClient({ baseUrl, clientId: 'test_id', clientSecret: 'the-secret' })
const calls = (path: string) => seen.filter((request) => request.url.startsWith(path))
const unavailable = { code: 'service_unavailable', message: 'Try again.', request_id: 'req-503' }

describe('the client’s login', () => {
  it('logs in once with the client credentials and sends the token on every call', async () => {
    handle = service((_, res) => json(res, 200, []))
    const amparo = client()
    await amparo.GET('/plans')
    await amparo.GET('/plans')
    const [login, ...rest] = seen
    expect(login).toMatchObject({ method: 'POST', url: '/auth/login' })
    expect(JSON.parse(login?.body ?? '')).toEqual({ client_id: 'test_id', client_secret: 'the-secret' })
    expect(rest.map((request) => request.headers.authorization)).toEqual(['Bearer t1', 'Bearer t1'])
  })

  it('logs in again once on a 401 and repeats the call with the new token (same Idempotency-Key)', async () => {
    handle = service((request, res) =>
      request.headers.authorization === 'Bearer t1'
        ? json(res, 401, { code: 'unauthenticated', message: 'Unauthenticated.', request_id: 'r' })
        : json(res, 201, { id: 1 }),
    )
    const { data } = await client().POST('/customers', { body: customer })
    expect(data).toEqual({ id: 1 })
    expect(seen.map((request) => `${request.url} ${request.headers.authorization ?? ''}`.trim())).toEqual([
      '/auth/login',
      '/customers Bearer t1',
      '/auth/login',
      '/customers Bearer t2',
    ])
    const keys = calls('/customers').map((request) => request.headers['idempotency-key'])
    expect(keys[0]).toBeTruthy()
    expect(keys[1]).toBe(keys[0])
  })

  it('throws the second 401 instead of logging in forever', async () => {
    handle = service((_, res) => json(res, 401, { code: 'unauthenticated', message: 'Unauthenticated.' }))
    const error = await client()
      .GET('/plans')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AmparoError)
    expect(error).toMatchObject({ status: 401, code: 'unauthenticated' })
    expect(calls('/auth/login')).toHaveLength(2)
    expect(calls('/plans')).toHaveLength(2)
  })

  it('shares one login among concurrent calls', async () => {
    handle = service((_, res) => json(res, 200, []))
    const amparo = client()
    await Promise.all([amparo.GET('/plans'), amparo.GET('/plans'), amparo.GET('/plans')])
    expect(calls('/auth/login')).toHaveLength(1)
  })

  it('throws a refused login as an AmparoError, and tries again on the next call', async () => {
    let refuse = true
    handle = (request, res) => {
      if (request.url === '/auth/login' && refuse)
        return json(res, 401, { code: 'unauthenticated', message: 'Unauthenticated.', request_id: 'r1' })
      service((_, r) => json(r, 200, []))(request, res)
    }
    const amparo = client()
    await expect(amparo.GET('/plans')).rejects.toMatchObject({ status: 401, requestId: 'r1' })
    refuse = false
    await expect(amparo.GET('/plans')).resolves.toMatchObject({ data: [] })
  })
})

const customer = {
  name: 'Maria da Silva',
  document: '52998224725',
  email: 'maria@example.com',
  phone: '11987654321',
}

describe('the client’s retries', () => {
  it('retries a 503 after its Retry-After, with the same Idempotency-Key, until it succeeds', async () => {
    let failures = 2
    handle = service((_, res) => {
      if (failures-- > 0) return json(res, 503, unavailable, { 'retry-after': '1' })
      json(res, 201, { id: 7 })
    })
    const { data } = await client().POST('/customers', { body: customer })
    expect(data).toEqual({ id: 7 })
    const attempts = calls('/customers')
    expect(attempts).toHaveLength(3)
    expect(new Set(attempts.map((request) => request.headers['idempotency-key'])).size).toBe(1)
    expect(new Set(attempts.map((request) => request.body))).toEqual(new Set([JSON.stringify(customer)]))
    // Retry-After: 1 was waited each time (less a little for the clock's grain).
    expect((attempts[1]?.at ?? 0) - (attempts[0]?.at ?? 0)).toBeGreaterThanOrEqual(950)
    expect((attempts[2]?.at ?? 0) - (attempts[1]?.at ?? 0)).toBeGreaterThanOrEqual(950)
  })

  it('retries a 429 too, and gives up after 3 retries with the last answer as an AmparoError', async () => {
    handle = service((_, res) =>
      json(
        res,
        429,
        { code: 'rate_limited', message: 'Too many requests.', request_id: 'req-429' },
        {
          'retry-after': '0',
        },
      ),
    )
    const error = await client()
      .GET('/plans')
      .catch((e: unknown) => e)
    expect(calls('/plans')).toHaveLength(4)
    expect(error).toBeInstanceOf(AmparoError)
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', requestId: 'req-429' })
  })

  it('does not retry other errors', async () => {
    handle = service((_, res) => json(res, 500, { code: 'server_error', message: 'Server error.' }))
    await expect(client().GET('/plans')).rejects.toMatchObject({ status: 500, code: 'server_error' })
    expect(calls('/plans')).toHaveLength(1)
  })

  it('reads Retry-After as seconds or as an HTTP date, and waits 1 s without one', () => {
    const now = Date.parse('2026-11-25T12:00:00Z')
    expect(retryAfterMs('3', now)).toBe(3000)
    expect(retryAfterMs('Wed, 25 Nov 2026 12:00:02 GMT', now)).toBe(2000)
    expect(retryAfterMs('Wed, 25 Nov 2026 11:00:00 GMT', now)).toBe(0)
    expect(retryAfterMs(null, now)).toBe(1000)
    expect(retryAfterMs('soon', now)).toBe(1000)
  })
})

describe('AmparoError', () => {
  it('carries status, code, message, errors, decline code and request id of the body', async () => {
    handle = service((_, res) =>
      json(res, 422, {
        code: 'validation_failed',
        message: 'The document is invalid. (and 1 more error)',
        errors: { document: ['The document is invalid.'], 'address.zip_code': ['Required.'] },
        request_id: 'req-422',
      }),
    )
    const error = (await client()
      .POST('/customers', { body: customer })
      .catch((e: unknown) => e)) as AmparoError
    expect(error).toBeInstanceOf(AmparoError)
    expect(error).toBeInstanceOf(Error)
    expect({ ...error, message: error.message, name: error.name, response: undefined }).toEqual({
      name: 'AmparoError',
      status: 422,
      code: 'validation_failed',
      message: 'The document is invalid. (and 1 more error)',
      errors: { document: ['The document is invalid.'], 'address.zip_code': ['Required.'] },
      declineCode: undefined,
      requestId: 'req-422',
      response: undefined,
    })
    expect(error.response?.status).toBe(422)
  })

  it('gives status, `http_<status>` and the X-Request-Id header for a body that is not the service’s', async () => {
    handle = service((_, res) =>
      res
        .writeHead(502, { 'content-type': 'text/html', 'x-request-id': 'edge-1' })
        .end('<h1>Bad gateway</h1>'),
    )
    await expect(client().GET('/plans')).rejects.toMatchObject({
      status: 502,
      code: 'http_502',
      message: 'HTTP 502',
      errors: {},
      requestId: 'edge-1',
    })
  })
})

describe('AmparoError, printed', () => {
  it('is one line with status, code, message and request id, never the Response’s internals', async () => {
    handle = service((_, res) =>
      json(res, 422, {
        code: 'validation_failed',
        message: 'The document is invalid.',
        errors: { document: ['The document is invalid.'] },
        request_id: 'req-422',
      }),
    )
    const error = (await client()
      .POST('/customers', { body: customer })
      .catch((e: unknown) => e)) as AmparoError
    const line = 'AmparoError 422 validation_failed: The document is invalid. (request_id req-422)'
    expect(String(error)).toBe(line)
    const printed = inspect(error)
    expect(printed.split('\n')[0]).toBe(line)
    // Only the stack follows: no Response, Headers or body stream.
    expect(
      printed
        .split('\n')
        .slice(1)
        .every((frame) => /^\s+at /.test(frame)),
    ).toBe(true)
    expect(printed).not.toMatch(/Response|Headers|ReadableStream/)
  })
})

/** A fetch that fails like Node's when nothing listens, `failures` times, then asks the real one. */
function unreachable(failures: number) {
  let left = failures
  const attempts: string[] = []
  const fetch: typeof globalThis.fetch = (input, init) => {
    const request = new Request(input, init)
    if (request.url.endsWith('/auth/login')) return globalThis.fetch(request)
    attempts.push(
      `${request.method} ${new URL(request.url).pathname} ${request.headers.get('idempotency-key') ?? ''}`,
    )
    if (left-- > 0) {
      const cause = Object.assign(new Error(`connect ECONNREFUSED ${new URL(request.url).host}`), {
        code: 'ECONNREFUSED',
      })
      return Promise.reject(new TypeError('fetch failed', { cause }))
    }
    return globalThis.fetch(request)
  }
  return { fetch, attempts }
}

describe('a service that cannot be reached', () => {
  it('throws AmparoConnectionError (an AmparoError) naming the call and the reason', async () => {
    // A port nothing listens on: one just released.
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise((resolve) => closed.close(resolve))
    const amparo = createAmparoClient({
      baseUrl: `http://127.0.0.1:${port}`,
      clientId: 'id',
      clientSecret: 's',
      maxRetries: 0,
    })
    const error = (await amparo.GET('/plans').catch((e: unknown) => e)) as AmparoConnectionError
    expect(error).toBeInstanceOf(AmparoConnectionError)
    expect(error).toBeInstanceOf(AmparoError)
    expect(error).toMatchObject({ status: 0, code: 'connection_failed', requestId: undefined })
    expect(error.message).toBe(
      `POST http://127.0.0.1:${port}/auth/login failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    )
    expect(String(error)).toMatch(/^AmparoConnectionError connection_failed: POST /)
    expect(error.response).toBeUndefined()
  })

  it('retries a GET and a keyed POST like a 503 (same Idempotency-Key) until an answer comes', async () => {
    handle = service((request, res) => json(res, request.method === 'POST' ? 201 : 200, { id: 7 }))
    const { fetch, attempts } = unreachable(2)
    const amparo = createAmparoClient({ baseUrl, clientId: 'id', clientSecret: 's', fetch })
    await expect(amparo.GET('/plans')).resolves.toMatchObject({ data: { id: 7 } })
    expect(attempts).toEqual(['GET /plans ', 'GET /plans ', 'GET /plans '])
    const writes = unreachable(2)
    const writer = createAmparoClient({ baseUrl, clientId: 'id', clientSecret: 's', fetch: writes.fetch })
    await expect(writer.POST('/customers', { body: customer })).resolves.toMatchObject({ data: { id: 7 } })
    expect(writes.attempts).toHaveLength(3)
    expect(new Set(writes.attempts).size).toBe(1)
    expect(calls('/customers')).toHaveLength(1)
  })

  it('gives up after maxRetries, and never resends a DELETE that carries no key', async () => {
    handle = service((_, res) => json(res, 200, {}))
    const gets = unreachable(10)
    const amparo = createAmparoClient({
      baseUrl,
      clientId: 'id',
      clientSecret: 's',
      fetch: gets.fetch,
      maxRetries: 1,
    })
    await expect(amparo.GET('/plans')).rejects.toBeInstanceOf(AmparoConnectionError)
    expect(gets.attempts).toHaveLength(2)
    const deletes = unreachable(10)
    const deleter = createAmparoClient({ baseUrl, clientId: 'id', clientSecret: 's', fetch: deletes.fetch })
    await expect(
      deleter.DELETE('/webhook-endpoints/{id}', { params: { path: { id: 1 } } }),
    ).rejects.toBeInstanceOf(AmparoConnectionError)
    expect(deletes.attempts).toHaveLength(1)
  })

  it('leaves the caller’s own abort as it is', async () => {
    handle = service((_, res) => json(res, 200, []))
    const controller = new AbortController()
    controller.abort()
    const error = await client()
      .GET('/plans', { signal: controller.signal })
      .catch((e: unknown) => e)
    expect(error).not.toBeInstanceOf(AmparoError)
    expect((error as Error).name).toBe('AbortError')
  })
})

describe('idempotency keys', () => {
  it('are added to POST, PUT and PATCH (a fresh one each call), not to GET or DELETE', async () => {
    handle = service((_, res) => json(res, 200, {}))
    const amparo = client()
    await amparo.POST('/customers', { body: customer })
    await amparo.POST('/customers', { body: customer })
    await amparo.PUT('/annual-plans/{id}/cancellation', { params: { path: { id: 1 } }, body: {} })
    await amparo.PATCH('/subscriptions/{subscriptionId}', {
      params: { path: { subscriptionId: 1 } },
      body: { serial_number: 'ABC' },
    })
    await amparo.GET('/plans')
    const keys = seen.filter((r) => r.url !== '/auth/login').map((r) => r.headers['idempotency-key'])
    expect(keys.slice(0, 4).every((key) => typeof key === 'string' && key.length > 0)).toBe(true)
    expect(new Set(keys.slice(0, 4)).size).toBe(4)
    expect(keys[4]).toBeUndefined()
  })

  it('keep the caller’s own key', async () => {
    handle = service((_, res) => json(res, 201, {}))
    await client().POST('/customers', { body: customer, params: { header: { 'Idempotency-Key': 'mine-1' } } })
    expect(calls('/customers')[0]?.headers['idempotency-key']).toBe('mine-1')
  })
})
