import { connect, type Socket } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { BOUNDARY, insertTestClaim, png } from './helpers/claim-documents.js'
import { createTestApp, useTestApp } from './helpers/test-app.js'
import {
  bearer,
  createCustomer,
  login,
  seedCatalog,
  seedPartner,
  seedPlan,
  type TestPartner,
  TOTAL_12X,
} from './helpers/world.js'

// README's Safe retries and limits on the wire: slow, idle and oversized clients against a listening server, with the
// timeouts shortened to a second so that the tests wait for them.

let port: number
let partner: TestPartner
let catalog: Awaited<ReturnType<typeof seedCatalog>>

const ctx = useTestApp({
  env: {
    AMPARO_HEADERS_TIMEOUT_SECONDS: '1',
    AMPARO_BODY_TIMEOUT_SECONDS: '1',
    AMPARO_KEEP_ALIVE_TIMEOUT_SECONDS: '2',
    AMPARO_MAX_CONNECTIONS: '3',
  },
})
beforeAll(async () => {
  catalog = await seedCatalog(ctx.db)
  partner = await seedPartner(ctx.db)
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  port = (ctx.app.server.address() as { port: number }).port
})

interface Exchange {
  /** Everything the server sent, and after how many milliseconds it closed the connection. */
  text: string
  closedAfterMs: number
  /** Milliseconds from the connection to the first byte of the answer. */
  answeredAfterMs: number
}

/** Sends `parts` (then nothing more) on a fresh connection and waits until the server closes it. */
function exchange(parts: (string | Buffer)[], { waitMs = 5000 } = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    let answeredAfterMs = -1
    let text = ''
    const socket = connect(port, '127.0.0.1', () => {
      for (const part of parts) socket.write(part)
    })
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`the server kept the connection open ${waitMs} ms; it sent: ${text.slice(0, 200)}`))
    }, waitMs)
    socket.on('data', (chunk) => {
      if (answeredAfterMs < 0) answeredAfterMs = Date.now() - started
      text += chunk.toString('latin1')
    })
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ text, closedAfterMs: Date.now() - started, answeredAfterMs })
    })
    // The server may reset a connection it refused while we were still writing.
    socket.on('error', () => {})
  })
}

/** A claim awaiting documents on a new subscription of `owner`. */
async function claimOf(owner: TestPartner, token: string): Promise<number> {
  const plan = await seedPlan(ctx.db, owner.id, TOTAL_12X)
  const customer = await createCustomer(ctx.app, token)
  const contracted = await ctx.app.inject({
    method: 'POST',
    url: '/subscriptions',
    headers: bearer(token),
    payload: { plan_id: plan.id, customer_id: customer.id, model_id: catalog.model('iPhone 16 Pro').id },
  })
  expect(contracted.statusCode, contracted.body).toBe(201)
  const subscription = await ctx.db
    .selectFrom('subscriptions')
    .select(['id', 'partner_id', 'plan_id', 'customer_id', 'model_id'])
    .where('id', '=', contracted.json().id)
    .executeTakeFirstOrThrow()
  return insertTestClaim(ctx.db, subscription, 'accidental_damage')
}

function parse(text: string) {
  const split = text.indexOf('\r\n\r\n')
  return {
    status: Number(text.slice(9, 12)),
    headers: text.slice(0, split).toLowerCase(),
    body: text.slice(split + 4),
  }
}

const loginHead = (length: number | 'chunked', path = '/auth/login') =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${
    length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`
  }\r\n\r\n`

/** 1 MiB of nested arrays: cheap to send, about 20× a flat body's CPU a byte to parse. */
const DEEP = `${'['.repeat(512 * 1024)}${']'.repeat(512 * 1024)}`

describe('a body that stops arriving', () => {
  it('is answered 408 {message} and its connection closed, within the body timeout', async () => {
    const body = JSON.stringify({ client_id: partner.clientId, client_secret: partner.clientSecret })
    const result = await exchange([loginHead(body.length), body.slice(0, 10)])
    const { status, headers, body: answer } = parse(result.text)
    expect(status).toBe(408)
    expect(headers).toContain('connection: close')
    expect(headers).toMatch(/\r\nx-request-id: \S+/)
    expect(JSON.parse(answer)).toMatchObject({ message: 'The request body did not arrive within 1 s.' })
    expect(result.answeredAfterMs).toBeGreaterThanOrEqual(900)
    expect(result.closedAfterMs).toBeLessThan(3000)
  })

  it('a chunked body that stops: the same', async () => {
    const result = await exchange([loginHead('chunked'), '5\r\n{"cli\r\n'])
    expect(parse(result.text).status).toBe(408)
    expect(result.closedAfterMs).toBeLessThan(3000)
  })

  it('a multipart upload that stops: 408 within the body timeout, as JSON', async () => {
    const token = await login(ctx.app, partner)
    const claimId = await claimOf(partner, token)
    const start = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="kind"\r\n\r\nphoto\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`
    const head = `POST /claims/${claimId}/documents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 100000\r\n\r\n`
    const result = await exchange([head, start, png()])
    const { status, headers, body: answer } = parse(result.text)
    expect(status).toBe(408)
    expect(headers).toContain('connection: close')
    // readForm's deadline, not Node's for the whole request (headers' and body's timeouts added).
    expect(JSON.parse(answer)).toMatchObject({
      code: 'request_timeout',
      message: 'The request body did not arrive within 1 s.',
    })
    expect(result.answeredAfterMs).toBeGreaterThanOrEqual(900)
    expect(result.closedAfterMs).toBeLessThan(3000)
  })

  it('a body sent to a route that reads none is cut off by the request deadline', async () => {
    const result = await exchange(['GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n', '{"a":'])
    // /health answers at once; the connection then waits for the rest of the body, not forever.
    expect(parse(result.text).status).toBe(200)
    expect(result.closedAfterMs).toBeLessThan(4000)
  })
})

describe('headers that stop arriving', () => {
  it('are answered 408 and closed within the headers timeout', async () => {
    const result = await exchange(['POST /auth/login HTTP/1.1\r\nHost: x\r\n'])
    expect(parse(result.text).status).toBe(408)
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(900)
    expect(result.closedAfterMs).toBeLessThan(3000)
  })

  it('a connection that sends nothing is closed too', async () => {
    const result = await exchange([])
    expect(result.closedAfterMs).toBeLessThan(3000)
  })
})

describe('a request with two Host headers', () => {
  it('is answered 400 bad_request with the error body: a proxy before us may have read the other', async () => {
    const result = await exchange(['GET /health HTTP/1.1\r\nHost: x\r\nHost: y\r\nConnection: close\r\n\r\n'])
    const { status, headers, body } = parse(result.text)
    expect(status).toBe(400)
    expect(headers).toMatch(/\r\nx-request-id: \S+/)
    expect(JSON.parse(body)).toMatchObject({
      code: 'bad_request',
      message: 'A request must carry one Host header.',
      request_id: expect.any(String),
    })
    const one = await exchange(['GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'])
    expect(parse(one.text).status).toBe(200)
  })
})

describe('an idle kept-alive connection', () => {
  it('is closed by the keep-alive timeout, the client told to stop reusing it a second before', async () => {
    const result = await exchange(['GET /health HTTP/1.1\r\nHost: x\r\n\r\n'])
    const { status, headers } = parse(result.text)
    expect(status).toBe(200)
    expect(headers).toMatch(/keep-alive: timeout=1(\r\n|$)/)
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(1900)
    expect(result.closedAfterMs).toBeLessThan(2500)
  })
})

describe('bodies refused before they are read', () => {
  // Only the first 64 KiB of each body is sent: an answer proves the rest was never waited for.
  const firstPart = DEEP.slice(0, 64 * 1024)

  it('a 1 MiB deep body to /auth/login: 413 at once', async () => {
    const result = await exchange([loginHead(DEEP.length), firstPart])
    const { status, body } = parse(result.text)
    expect(status).toBe(413)
    expect(JSON.parse(body)).toMatchObject({ message: 'The request body must not be larger than 16 KiB.' })
    expect(result.answeredAfterMs).toBeLessThan(500)
  })

  it('the same, chunked (no length to read): 413 once 16 KiB have come', async () => {
    const chunk = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`
    const result = await exchange([loginHead('chunked'), chunk(firstPart)])
    expect(parse(result.text).status).toBe(413)
    expect(result.answeredAfterMs).toBeLessThan(500)
  })

  it('a 1 MiB deep body to an unknown route: 404 at once, the body not read', async () => {
    const result = await exchange([loginHead(DEEP.length, '/nowhere'), firstPart])
    const { status, body } = parse(result.text)
    expect(status).toBe(404)
    expect(JSON.parse(body)).toMatchObject({ message: 'Route POST /nowhere not found.' })
    expect(result.answeredAfterMs).toBeLessThan(500)
  })
})

describe('a deeply nested body from an authenticated partner', () => {
  it('1 MiB of [[[…]]] is refused 400 invalid_json without being parsed', async () => {
    const token = await login(ctx.app, partner)
    const head = `POST /customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${DEEP.length}\r\nConnection: close\r\n\r\n`
    const result = await exchange([head, DEEP])
    const { status, body } = parse(result.text)
    expect(status).toBe(400)
    expect(JSON.parse(body)).toMatchObject({
      code: 'invalid_json',
      message: 'The request body must not nest arrays or objects deeper than 64 levels.',
    })
    // Parsing and validating it took 0.8–1.3 s of CPU; the scan, about a millisecond.
    expect(result.answeredAfterMs).toBeLessThan(2000)
  })

  it('64 levels are still read as JSON', async () => {
    const token = await login(ctx.app, partner)
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/customers',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'Ana', metadata: JSON.parse(`${'['.repeat(63)}${']'.repeat(63)}`) },
    })
    expect(response.json().code).toBe('validation_failed')
  })
})

describe('open connections', () => {
  const open = () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket))
      socket.on('error', reject)
    })
  const health = (socket: Socket) =>
    new Promise<string>((resolve) => {
      let text = ''
      socket.on('data', (chunk) => {
        text += chunk
        if (text.includes('\r\n\r\n')) resolve(text)
      })
      socket.on('close', () => resolve(text))
      socket.on('error', () => resolve(text))
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
    })

  it('are capped (AMPARO_MAX_CONNECTIONS): one more is closed unanswered, room frees up', async () => {
    const held = await Promise.all([open(), open(), open()])
    try {
      for (const socket of held) expect(await health(socket)).toMatch(/^HTTP\/1\.1 200/)
      const refused = await open()
      expect(await health(refused)).toBe('')
      refused.destroy()
      held.pop()?.destroy()
      await new Promise((resolve) => setTimeout(resolve, 50))
      const admitted = await open()
      expect(await health(admitted)).toMatch(/^HTTP\/1\.1 200/)
      admitted.destroy()
    } finally {
      for (const socket of held) socket.destroy()
    }
  })
})

describe('the per-address login limit', () => {
  it('answers 429 before the body is read', async () => {
    // Per client and address 1 a minute, so per address 5 (LOGIN_ADDRESS_FACTOR).
    const limited = await createTestApp({ env: { AMPARO_LOGIN_RATE_LIMIT: '1' } })
    try {
      await limited.app.listen({ port: 0, host: '127.0.0.1' })
      const limitedPort = (limited.app.server.address() as { port: number }).port
      for (let i = 0; i < 5; i++) {
        const payload = { client_id: `test_guess${i}`, client_secret: 'x' }
        const response = await limited.app.inject({ method: 'POST', url: '/auth/login', payload })
        expect(response.statusCode).toBe(401)
      }
      const result = await new Promise<{ text: string; afterMs: number }>((resolve) => {
        const started = Date.now()
        const socket = connect(limitedPort, '127.0.0.1', () => socket.write(`${loginHead(100)}{"client_id":`))
        socket.once('data', (chunk) => {
          resolve({ text: chunk.toString(), afterMs: Date.now() - started })
          socket.destroy()
        })
      })
      expect(parse(result.text).status).toBe(429)
      expect(result.afterMs).toBeLessThan(500)
    } finally {
      await limited.close()
    }
  })
})
