import { connect, type Socket } from 'node:net'
import type { InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { GatewayRefusedError } from '../src/modules/payments/payment.errors.js'
import { clientErrors } from '../src/plugins/server-options.js'
import { ERROR_CODES, type ErrorCode, statusOf } from '../src/shared/errors.js'
import { requestIdOf } from './helpers/errors.js'
import { sandboxWith } from './helpers/gateways.js'
import { buildCheckedApp, useTestApp } from './helpers/test-app.js'
import {
  bearer,
  createCustomer,
  partnerWithToken,
  seedCatalog,
  seedPlan,
  TOTAL_12X,
} from './helpers/world.js'

// Every error the service can answer, each with its code, and a request_id equal
// to the X-Request-Id header. The codes §13 names, plus 417 (docs/decisions.md).

let limited: App
/** Its gateway refuses every first charge as malformed (a bug, a revoked key): 502. */
let refusing: App
let port: number
const logLines: string[] = []
const logStream = { write: (line: string) => void logLines.push(line) }

interface Party {
  token: string
  planId: number
  modelId: number
}
let own: Party
let external: Party

async function partyOf(gateway: 'own' | 'external'): Promise<Party> {
  const { partner, token } = await partnerWithToken(ctx.app, ctx.db, gateway)
  const plan = await seedPlan(ctx.db, partner.id, TOTAL_12X)
  await createCustomer(ctx.app, token)
  const model = await ctx.db
    .selectFrom('models')
    .select('id')
    .where('name', '=', 'Galaxy S25')
    .executeTakeFirstOrThrow()
  return { token, planId: plan.id, modelId: model.id }
}

function inject(options: InjectOptions, app: App = ctx.app) {
  return app.inject(options)
}

async function subscribe(p: Party): Promise<number> {
  const response = await inject({
    method: 'POST',
    url: '/subscriptions',
    headers: bearer(p.token),
    payload: { plan_id: p.planId, customer_document: '52998224725', model_id: p.modelId },
  })
  expect(response.statusCode, response.body).toBe(201)
  return response.json().id
}

const card = (number: string) => ({ creditCard: { number, expiry: '1230', cvv: '123' } })
const pay = (p: Party, id: number, number = '4111111111111111') =>
  inject({
    method: 'POST',
    url: `/subscriptions/${id}/payment`,
    headers: bearer(p.token),
    payload: card(number),
  })

const ctx = useTestApp({
  logStream,
  env: { LOG_LEVEL: 'info' },
  routes(app) {
    app.get('/test/boom', { schema: { hide: true } }, async () => {
      throw new Error('boom')
    })
  },
})
beforeAll(async () => {
  await seedCatalog(ctx.db)
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  port = (ctx.app.server.address() as { port: number }).port
  own = await partyOf('own')
  external = await partyOf('external')
  const config = { ...ctx.config, rateLimits: { ...ctx.config.rateLimits, perPartner: 1 } }
  limited = await buildCheckedApp({ config, db: ctx.db })
  const gateway = sandboxWith({
    chargeCard: async () => {
      throw new GatewayRefusedError('refused as malformed', { stripe_request_id: 'req_test' })
    },
  })
  refusing = await buildCheckedApp({ config: ctx.config, db: ctx.db, gateway, logger: false })
})
afterAll(async () => {
  await refusing?.close()
  await limited?.close()
})

interface Answer {
  statusCode: number
  headers: Record<string, unknown>
  body: string
}

/** Sends a raw request to the listening app: for what Node refuses before Fastify sees it. */
function raw(request: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(request))
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      text += chunk
    })
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? null : reject(error)))
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n')
      const [statusLine = '', ...lines] = head.split('\r\n')
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      )
      resolve({ statusCode: Number(statusLine.split(' ')[1]), headers, body })
    })
  })
}

/** What `clientErrors` (Node's parser refusals and timeouts) writes for `code`. */
function clientError(code: string): Answer {
  let written = ''
  const socket = {
    destroyed: false,
    writable: true,
    write: (text: string) => {
      written += text
    },
    destroy: () => undefined,
  }
  clientErrors(Object.assign(new Error(code), { code }), socket as unknown as Socket)
  const [head = '', body = ''] = written.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(lines.map((line) => line.split(': ') as [string, string]))
  return { statusCode: Number(statusLine.split(' ')[1]), headers, body }
}

const CASES: [ErrorCode, () => Promise<Answer> | Answer][] = [
  [
    'invalid_json',
    () =>
      inject({
        method: 'POST',
        url: '/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: '{bad',
      }),
  ],
  ['bad_request', () => raw('GET /health HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n')],
  ['unauthenticated', () => inject({ method: 'GET', url: '/brands' })],
  ['card_declined', async () => pay(own, await subscribe(own), '4000000000000002')],
  ['not_found', () => inject({ method: 'GET', url: '/nope' })],
  ['request_timeout', () => clientError('ERR_HTTP_REQUEST_TIMEOUT')],
  [
    'payment_in_progress',
    async () => {
      const id = await subscribe(own)
      await retryingTransaction(ctx.db, (trx) =>
        trx
          .updateTable('installments')
          .set({ locked_until: '2999-01-01T00:00:00.000Z' })
          .where('subscription_id', '=', id)
          .where('number', '=', 1)
          .execute(),
      )
      return pay(own, id)
    },
  ],
  [
    'clock_advancing',
    async () => {
      // Another process's advance holds this partner's sandbox clock.
      const { partner, token } = await partnerWithToken(ctx.app, ctx.db)
      await retryingTransaction(ctx.db, (trx) =>
        trx
          .updateTable('partners')
          .set({ clock_advancing_until: '2999-01-01T00:00:00.000Z' })
          .where('id', '=', partner.id)
          .execute(),
      )
      return inject({
        method: 'POST',
        url: '/sandbox/clock/advance',
        headers: bearer(token),
        payload: { days: 1 },
      })
    },
  ],
  [
    'payload_too_large',
    () =>
      inject({
        method: 'POST',
        url: '/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: `{"a":"${'x'.repeat(1024 * 1024)}"}`,
      }),
  ],
  [
    'unsupported_media_type',
    () =>
      inject({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'text/plain' }, payload: 'a' }),
  ],
  [
    'expectation_failed',
    () =>
      raw(
        'POST /auth/login HTTP/1.1\r\nHost: x\r\nExpect: 202-accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
      ),
  ],
  [
    'validation_failed',
    () => inject({ method: 'GET', url: '/brands?page=0', headers: bearer(external.token) }),
  ],
  [
    'invalid_state',
    async () => {
      const id = await subscribe(external)
      const cancel = () =>
        inject({ method: 'POST', url: `/subscriptions/${id}/cancellation`, headers: bearer(external.token) })
      expect((await cancel()).statusCode).toBe(200)
      return cancel()
    },
  ],
  ['wrong_gateway', async () => pay(external, await subscribe(external))],
  [
    'idempotency_key_reused',
    async () => {
      const send = (name: string) =>
        inject({
          method: 'POST',
          url: '/customers',
          headers: { ...bearer(external.token), 'idempotency-key': 'walk-reused' },
          payload: { name, document: '16899535009', email: 'reused@example.com', phone: '11987654321' },
        })
      await send('First')
      return send('Second')
    },
  ],
  [
    'rate_limited',
    async () => {
      const send = () => inject({ method: 'GET', url: '/plans', headers: bearer(external.token) }, limited)
      await send()
      return send()
    },
  ],
  ['headers_too_large', () => raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)],
  ['server_error', () => inject({ method: 'GET', url: '/test/boom' })],
  [
    'gateway_error',
    async () =>
      inject(
        {
          method: 'POST',
          url: `/subscriptions/${await subscribe(own)}/payment`,
          headers: bearer(own.token),
          payload: card('4111111111111111'),
        },
        refusing,
      ),
  ],
  [
    'service_unavailable',
    async () => {
      ctx.app.lifecycle.draining = true
      try {
        return await inject({ method: 'GET', url: '/ready' })
      } finally {
        ctx.app.lifecycle.draining = false
      }
    },
  ],
]

describe('every error the service answers', () => {
  it('covers every code of the table', () => {
    // Kept in the table for clients written against it, no longer answered: a request with the key
    // of one still in progress waits for it and gets its answer (docs/decisions.md).
    const retired: string[] = ['idempotency_key_in_flight']
    const answered = Object.values(ERROR_CODES)
      .flat()
      .filter((code) => !retired.includes(code))
    expect(CASES.map(([code]) => code).sort()).toEqual(answered.sort())
  })

  it.each(CASES)('%s: its status, its code, and request_id = X-Request-Id', async (code, send) => {
    const response = await send()
    expect(response.statusCode, response.body).toBe(statusOf(code))
    const body = JSON.parse(response.body)
    expect(body.code).toBe(code)
    expect(body.message).toEqual(expect.any(String))
    expect(body.request_id).toBe(requestIdOf(response))
  })
})

describe('X-Request-Id', () => {
  const CARD = '5555555555554444'

  it('is echoed when sane, also into the error body and the log', async () => {
    const response = await inject({
      method: 'GET',
      url: '/brands',
      headers: { 'x-request-id': 'walk-trace.1:a' },
    })
    expect(response.statusCode).toBe(401)
    expect(response.headers['x-request-id']).toBe('walk-trace.1:a')
    expect(response.json().request_id).toBe('walk-trace.1:a')
    expect(logLines.join('\n')).toContain('walk-trace.1:a')
  })

  it('is not echoed nor logged when it could be a card number: the service makes its own', async () => {
    const before = logLines.length
    for (const sent of [CARD, `order-${CARD}`]) {
      const response = await inject({ method: 'GET', url: '/brands', headers: { 'x-request-id': sent } })
      expect(response.statusCode).toBe(401)
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
      expect(response.json().request_id).toBe(response.headers['x-request-id'])
      expect(response.body).not.toContain(CARD)
    }
    expect(logLines.length).toBeGreaterThan(before)
    expect(logLines.join('\n')).not.toContain(CARD)
  })
})
