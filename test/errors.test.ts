import { connect } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { BODY_LIMIT } from '../src/plugins/server-options.js'
import { expectedError } from './helpers/errors.js'
import { useTestApp } from './helpers/test-app.js'
import { bearer, partnerWithToken, seedCatalog, type TestPartner } from './helpers/world.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const LEAK = 'SELECT secret FROM x'

let partner: TestPartner
let token: string
const logged: string[] = []

// Captures the log lines, to check that a server fault is logged (and its body is not the log).
const ctx = useTestApp({
  logger: { level: 'error', stream: { write: (line: string) => logged.push(line) } },
  routes(app) {
    // A route that fails the way a bug does: a plain Error whose message must never reach the client.
    app.get('/test/boom', { schema: { hide: true } }, async () => {
      throw new Error(`${LEAK} WHERE password = 'hunter2'`)
    })
    app.get('/test/boom-status', { schema: { hide: true } }, async () => {
      throw Object.assign(new Error(LEAK), { statusCode: 503 })
    })
  },
})
beforeAll(async () => {
  await seedCatalog(ctx.db)
  ;({ partner, token } = await partnerWithToken(ctx.app, ctx.db))
})

function postLogin(payload: string | Buffer, contentType = 'application/json', headers = {}) {
  return ctx.app.inject({
    method: 'POST',
    url: '/auth/login',
    headers: { 'content-type': contentType, ...headers },
    payload,
  })
}

/** A JSON object of exactly `size` bytes. */
function jsonOfSize(size: number): string {
  const frame = '{"client_id":""}'
  return `{"client_id":"${'a'.repeat(size - frame.length)}"}`
}

describe('400: body is not valid JSON', () => {
  it.each(['{bad', '{"client_id": "a",}', "{'client_id': 'a'}", '{"a":1}}', 'undefined'])(
    '%s answers 400 {message}',
    async (payload) => {
      const response = await postLogin(payload)
      expect(response.statusCode).toBe(400)
      expect(response.json()).toEqual(
        expectedError(response, 'invalid_json', { message: 'The request body is not valid JSON.' }),
      )
      expect(response.headers['content-type']).toContain('application/json')
    },
  )

  it.each([
    ['__proto__', '{"__proto__": {"isAdmin": true}, "client_id": "a", "client_secret": "b"}'],
    ['constructor.prototype', '{"constructor": {"prototype": {"isAdmin": true}}}'],
  ])(
    'a body with %s is read without that key: valid JSON, the key ignored like any unknown field',
    async (_, payload) => {
      const response = await postLogin(payload)
      expect(response.statusCode).not.toBe(400)
      expect(response.statusCode).toBeLessThan(500)
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined()
    },
  )

  it('answers 400 for bytes that are not UTF-8, rather than storing U+FFFD in their place', async () => {
    const payload = Buffer.concat([Buffer.from('{"client_id":"Jo'), Buffer.from([0xe3]), Buffer.from('o"}')])
    const response = await postLogin(payload)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual(
      expectedError(response, 'invalid_json', {
        message: 'The request body is not valid JSON: it is not UTF-8.',
      }),
    )
  })

  it('logs in with a __proto__ key beside valid credentials', async () => {
    const response = await postLogin(
      `{"__proto__": {"isAdmin": true}, "client_id": "${partner.clientId}", "client_secret": "${partner.clientSecret}"}`,
    )
    expect(response.statusCode).toBe(200)
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined()
  })
})

describe('404: unknown route', () => {
  it.each([
    ['GET', '/nope'],
    ['POST', '/nope'],
    ['GET', '/brands/1/nope'],
    ['DELETE', '/brands'],
  ])('%s %s answers 404 {message} without a token', async (method, url) => {
    const response = await ctx.app.inject({ method: method as 'GET', url })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual(
      expectedError(response, 'not_found', { message: `Route ${method} ${url} not found.` }),
    )
  })

  it('answers 404, not 401, with a token too', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/nope?x=1', headers: bearer(token) })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual(
      expectedError(response, 'not_found', { message: 'Route GET /nope not found.' }),
    )
  })
})

describe('HTTP as sent on the wire', () => {
  let port: number
  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    port = (ctx.app.server.address() as { port: number }).port
  })

  /** Sends `head` (and `body`) on a fresh connection; resolves with the status line, headers and body. */
  function raw(head: string, body = ''): Promise<{ status: number; headers: string; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`),
      )
      let text = ''
      socket.on('data', (chunk) => {
        text += chunk
      })
      socket.on('end', () => {
        const split = text.indexOf('\r\n\r\n')
        resolve({
          status: Number(text.slice(9, 12)),
          headers: text.slice(0, split),
          body: text.slice(split + 4),
        })
      })
      socket.on('error', reject)
    })
  }
  const credentials = () => Buffer.from(`${partner.clientId}:${partner.clientSecret}`).toString('base64')

  it('reads an empty chunked body sent with a form content type as no body', async () => {
    const response = await raw(
      `POST /auth/login HTTP/1.1\r\nHost: x\r\nX-Credentials: ${credentials()}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked`,
      '0\r\n\r\n',
    )
    expect(response.status, response.body).toBe(200)
  })

  it('still answers 415 for a chunked body with content that is not JSON', async () => {
    const response = await raw(
      `POST /auth/login HTTP/1.1\r\nHost: x\r\nX-Credentials: ${credentials()}\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked`,
      '3\r\nabc\r\n0\r\n\r\n',
    )
    expect(response.status).toBe(415)
  })

  it('builds links from the path when the request line is in absolute form (through a proxy)', async () => {
    const response = await raw(
      `GET http://127.0.0.1:${port}/brands?per_page=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}`,
    )
    expect(response.status).toBe(200)
    expect(JSON.parse(response.body).meta.path).toBe(`http://127.0.0.1:${port}/brands`)
  })

  it('answers an Expect it cannot meet with 417 in the contract shape, with a request id', async () => {
    const response = await raw(
      'POST /auth/login HTTP/1.1\r\nHost: x\r\nExpect: 202-accepted\r\nContent-Length: 0',
    )
    expect(response.status).toBe(417)
    const id = /\r\nx-request-id: ([0-9a-f-]{36})\r\n/i.exec(response.headers)?.[1]
    expect(id).toBeDefined()
    expect(JSON.parse(response.body)).toEqual({
      code: 'expectation_failed',
      message: 'Only "Expect: 100-continue" is supported.',
      request_id: id,
    })
  })
})

describe('HEAD and trailing slashes', () => {
  it('answers HEAD on a GET route with its headers and no body', async () => {
    const response = await ctx.app.inject({ method: 'HEAD', url: '/health' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['x-request-id']).toBeDefined()
    expect(response.body).toBe('')
  })

  it('reads /brands/ as /brands', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/brands/?per_page=1',
      headers: bearer(token),
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().meta.per_page).toBe(1)
  })
})

describe('413: body over 1 MiB (16 KiB on login)', () => {
  const postCustomer = (payload: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/customers',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload,
    })

  it('answers 413 {code, message, request_id} for 1 MiB + 1 byte', async () => {
    const payload = jsonOfSize(BODY_LIMIT + 1)
    expect(Buffer.byteLength(payload)).toBe(1024 * 1024 + 1)
    const response = await postCustomer(payload)
    expect(response.statusCode).toBe(413)
    expect(response.json()).toEqual(
      expectedError(response, 'payload_too_large', { message: expect.stringContaining('1 MiB') }),
    )
  })

  it('accepts exactly 1 MiB (then validates it)', async () => {
    const payload = jsonOfSize(BODY_LIMIT)
    expect(Buffer.byteLength(payload)).toBe(1024 * 1024)
    const response = await postCustomer(payload)
    expect(response.statusCode).toBe(422)
    expect(Object.keys(response.json().errors)).toContain('name')
  })

  it('on login: 413 past 16 KiB, exactly 16 KiB read (then validated)', async () => {
    const over = await postLogin(jsonOfSize(16 * 1024 + 1))
    expect(over.statusCode).toBe(413)
    expect(over.json()).toEqual(
      expectedError(over, 'payload_too_large', {
        message: 'The request body must not be larger than 16 KiB.',
      }),
    )
    const exactly = await postLogin(jsonOfSize(16 * 1024))
    expect(exactly.statusCode).toBe(422)
    expect(Object.keys(exactly.json().errors)).toContain('client_id')
  })
})

describe('415: a body that is not JSON', () => {
  it.each([
    ['text/plain', 'client_id=a'],
    ['application/x-www-form-urlencoded', 'client_id=a&client_secret=b'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--'],
    ['application/xml', '<login/>'],
  ])('%s answers 415 {message}', async (contentType, payload) => {
    const response = await postLogin(payload, contentType)
    expect(response.statusCode).toBe(415)
    expect(response.json()).toEqual(
      expectedError(response, 'unsupported_media_type', {
        message: 'The request body must be sent as application/json.',
      }),
    )
  })

  it.each(['application/x-www-form-urlencoded', 'text/plain'])(
    'reads an empty body sent as %s as no body',
    async (contentType) => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/auth/login',
        headers: {
          'content-type': contentType,
          'x-credentials': Buffer.from(`${partner.clientId}:${partner.clientSecret}`).toString('base64'),
        },
        payload: '',
      })
      expect(response.statusCode, response.body).toBe(200)
    },
  )

  it.each([
    [
      'application/json; charset=iso-8859-1',
      {},
      'The request body must be sent as application/json in UTF-8.',
    ],
    [
      'application/json',
      { 'content-encoding': 'gzip' },
      'The request body must not be compressed: Content-Encoding is not supported.',
    ],
  ])('answers 415 for %s %o, which the service cannot read as sent', async (type, headers, message) => {
    const response = await postLogin('{"client_id":"a"}', type, headers)
    expect(response.statusCode).toBe(415)
    expect(response.json()).toEqual(expectedError(response, 'unsupported_media_type', { message }))
  })

  it('accepts application/json with a charset', async () => {
    const response = await postLogin(
      JSON.stringify({ client_id: partner.clientId, client_secret: partner.clientSecret }),
      'application/json; charset=utf-8',
    )
    expect(response.statusCode).toBe(200)
  })
})

describe('422: invalid body', () => {
  it.each([
    ['[]', 'The body field must be an object.'],
    ['null', 'The body field must be an object.'],
    ['"str"', 'The body field must be an object.'],
    ['42', 'The body field must be an object.'],
    ['true', 'The body field must be an object.'],
  ])('%s answers 422, never 500', async (payload, message) => {
    const response = await postLogin(payload)
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(
      expectedError(response, 'validation_failed', { message, errors: { body: [message] } }),
    )
  })

  it.each([
    ['PUT', '/annual-plans/1/cancellation'],
    ['POST', '/subscriptions/1/cancellation'],
  ])('a null body on %s %s, whose body is optional, answers the same 422', async (method, url) => {
    const response = await ctx.app.inject({
      method: method as 'PUT',
      url,
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: 'null',
    })
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(
      expectedError(response, 'validation_failed', {
        message: 'The body field must be an object.',
        errors: { body: ['The body field must be an object.'] },
      }),
    )
  })

  it('summarises several errors in message, Laravel style', async () => {
    const response = await postLogin(JSON.stringify({ client_id: 1, client_secret: false }))
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(
      expectedError(response, 'validation_failed', {
        message: 'The client id field must be a string. (and 1 more error)',
        errors: {
          client_id: ['The client id field must be a string.'],
          client_secret: ['The client secret field must be a string.'],
        },
      }),
    )
  })

  it('treats an empty JSON body as no body: the credentials are required', async () => {
    const response = await postLogin('')
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(
      expectedError(response, 'validation_failed', {
        message: 'The client id field is required. (and 1 more error)',
        errors: {
          client_id: ['The client id field is required.'],
          client_secret: ['The client secret field is required.'],
        },
      }),
    )
  })

  it('treats a POST without body or content type the same way', async () => {
    const response = await ctx.app.inject({ method: 'POST', url: '/auth/login' })
    expect(response.statusCode).toBe(422)
    expect(Object.keys(response.json().errors)).toEqual(['client_id', 'client_secret'])
  })
})

describe('5xx: server fault', () => {
  it('answers exactly {code, message, request_id}, without the stack or the SQL', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/test/boom' })
    expect(response.statusCode).toBe(500)
    const body = response.json()
    expect(body).toEqual(expectedError(response, 'server_error', { message: 'Server error.' }))
    expect(body.request_id).toMatch(UUID)
    for (const leak of ['SELECT', 'secret', 'hunter2', 'stack', 'errors.test', '    at ']) {
      expect(response.body).not.toContain(leak)
    }
  })

  it('quotes the caller’s request id', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/test/boom',
      headers: { 'x-request-id': 'trace-500' },
    })
    expect(response.statusCode).toBe(500)
    expect(response.headers['x-request-id']).toBe('trace-500')
    expect(response.json()).toEqual({
      code: 'server_error',
      message: 'Server error.',
      request_id: 'trace-500',
    })
  })

  it('hides the message of any 5xx error', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/test/boom-status' })
    expect(response.statusCode).toBe(500)
    expect(response.json()).toEqual(expectedError(response, 'server_error', { message: 'Server error.' }))
  })

  it('logs the fault with its request id', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/test/boom',
      headers: { 'x-request-id': 'trace-logged' },
    })
    expect(response.statusCode).toBe(500)
    const line = logged.map((l) => JSON.parse(l)).find((l) => l.reqId === 'trace-logged' && l.err)
    expect(line?.err.message).toContain(LEAK)
  })
})

describe('X-Request-Id', () => {
  it.each([
    'abc-123',
    'A.b_c:9',
    'x'.repeat(128),
    '0f8fad5b-d9cb-469f-a165-70867728950e',
    'order-170000000000',
    // 13 digits that fail the Luhn check: an order number, not a card
    'order-1700000000000',
  ])('echoes a sane one (%s)', async (id) => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': id },
    })
    expect(response.statusCode).toBe(200)
    expect(response.headers['x-request-id']).toBe(id)
  })

  it.each([
    ['200 characters', 'a'.repeat(200)],
    ['129 characters', 'a'.repeat(129)],
    ['a space', 'abc 123'],
    ['a tab', 'abc\t123'],
    ['a line separator', 'abc\u2028123'],
    ['a next-line character', 'abc\u0085123'],
    ['markup', '<script>'],
    ['an empty value', ''],
    ['a card number', '5555555555554444'],
    ['a run of 13 digits that passes the Luhn check', 'order-4222222222222'],
  ])('replaces one with %s by a generated UUID', async (_, id) => {
    const response = await ctx.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': id } })
    expect(response.statusCode).toBe(200)
    expect(response.headers['x-request-id']).toMatch(UUID)
  })

  it('generates a different one per request when none is sent', async () => {
    const first = await ctx.app.inject({ method: 'GET', url: '/health' })
    const second = await ctx.app.inject({ method: 'GET', url: '/health' })
    expect(first.headers['x-request-id']).toMatch(UUID)
    expect(second.headers['x-request-id']).toMatch(UUID)
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id'])
  })

  it.each([
    [400, () => postLogin('{bad', 'application/json', { 'x-request-id': 'trace-400' })],
    [401, () => ctx.app.inject({ method: 'GET', url: '/brands', headers: { 'x-request-id': 'trace-401' } })],
    [404, () => ctx.app.inject({ method: 'GET', url: '/nope', headers: { 'x-request-id': 'trace-404' } })],
    [413, () => postLogin(jsonOfSize(BODY_LIMIT + 1), 'application/json', { 'x-request-id': 'trace-413' })],
    [415, () => postLogin('a', 'text/plain', { 'x-request-id': 'trace-415' })],
    [422, () => postLogin('{}', 'application/json', { 'x-request-id': 'trace-422' })],
    [
      500,
      () => ctx.app.inject({ method: 'GET', url: '/test/boom', headers: { 'x-request-id': 'trace-500' } }),
    ],
  ])('is present on a %i', async (status, send) => {
    const response = await send()
    expect(response.statusCode).toBe(status)
    expect(response.headers['x-request-id']).toBe(`trace-${status}`)
    expect(response.json().request_id).toBe(`trace-${status}`)
  })

  it('is present on an authenticated success', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/brands',
      headers: { ...bearer(token), 'x-request-id': 'trace-200' },
    })
    expect(response.statusCode).toBe(200)
    expect(response.headers['x-request-id']).toBe('trace-200')
  })
})

describe('GET /health', () => {
  it('answers 200 {status: ok} without a token', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/health' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ status: 'ok' })
    expect(response.headers['content-type']).toContain('application/json')
  })

  it('ignores a bad token', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/health', headers: bearer('garbage') })
    expect(response.statusCode).toBe(200)
  })
})

describe('numbers in query strings and paths', () => {
  const ctx = useTestApp()
  let token: string

  beforeAll(async () => {
    await seedCatalog(ctx.db)
    ;({ token } = await partnerWithToken(ctx.app, ctx.db))
  })

  it.each(['0x2', '1e1', '%2010', 'Infinity', '10.0'])(
    'per_page=%s is not a plain integer → 422',
    async (value) => {
      const response = await ctx.app.inject({ url: `/brands?per_page=${value}`, headers: bearer(token) })
      expect(response.statusCode).toBe(422)
      expect(response.json().errors).toEqual({ per_page: ['The per page field must be an integer.'] })
    },
  )

  it.each(['0x1', '1e0', '%201'])('a path id %s is not an id → 404', async (value) => {
    const response = await ctx.app.inject({ url: `/brands/${value}`, headers: bearer(token) })
    expect(response.statusCode).toBe(404)
  })

  it('plain decimals still work', async () => {
    const response = await ctx.app.inject({ url: '/brands?per_page=2&page=1', headers: bearer(token) })
    expect(response.statusCode).toBe(200)
    expect(response.json().meta.per_page).toBe(2)
  })
})

describe('security headers', () => {
  const ctx = useTestApp()

  it.each(['/health', '/brands', '/nope'])(
    '%s carries headers suited to a JSON API and no x-powered-by',
    async (url) => {
      const response = await ctx.app.inject({ url })
      expect(response.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      })
      expect(response.headers['x-powered-by']).toBeUndefined()
      expect(response.headers.server).toBeUndefined()
    },
  )

  it('leaves the reference UI its own content security policy', async () => {
    const response = await ctx.app.inject({ url: '/docs/' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['x-content-type-options']).toBe('nosniff')
    expect(String(response.headers['content-security-policy'])).not.toBe(
      "default-src 'none'; frame-ancestors 'none'",
    )
  })
})
