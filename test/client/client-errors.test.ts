import { type AddressInfo, createServer } from 'node:net'
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { prefersPortuguese } from '../../clients/typescript/src/errors.js'
import {
  type AmparoClient,
  AmparoConnectionError,
  AmparoError,
  createAmparoClient,
} from '../../clients/typescript/src/index.js'
import { type App, buildApp } from '../../src/app.js'
import { type DemoPartner, loadDemo } from '../../src/demo/demo.js'
import { GatewayUnavailableError } from '../../src/modules/payments/payment.errors.js'
import type { ChargeResult, FirstCharge } from '../../src/modules/payments/payment-gateway.js'
import { SandboxGateway } from '../../src/modules/payments/sandbox-gateway.js'
import { languageOf } from '../../src/plugins/messages.js'
import { customerBody, uniqueImei } from '../helpers/bodies.js'
import { sandboxWith } from '../helpers/gateways.js'
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js'

// Every error @amparo/client surfaces, in English and with `language: 'pt-BR'` (Accept-Language),
// against the app listening on a real socket with the demo loaded: the service's 4xx and 5xx as
// AmparoError (message and field errors in the language asked for, and its one printed line showing
// them), and no answer at all as AmparoConnectionError. verifyWebhook's errors involve no service
// and no language: test/client/client-webhooks.test.ts.

let database: TestDatabase
let app: App
let baseUrl: string
let demo: DemoPartner[]

/** What the gateway's first-charge call does: the sandbox's, wait for `release`, or fail. */
let charging: 'sandbox' | 'hang' | 'unavailable' | 'crash' = 'sandbox'
let reached: () => void = () => {}
let release: () => void = () => {}
const sandbox = new SandboxGateway()
async function chargeCard(charge: FirstCharge): Promise<ChargeResult> {
  if (charging === 'hang') {
    await new Promise<void>((resolve) => {
      release = resolve
      reached()
    })
  }
  if (charging === 'unavailable') throw new GatewayUnavailableError()
  if (charging === 'crash') throw new Error('the gateway adapter broke')
  return sandbox.chargeCard(charge)
}

beforeAll(async () => {
  database = await createTestDatabase()
  demo = (await loadDemo(database.db, database.config, new Date().toISOString())).partners
  app = await buildApp({
    config: database.config,
    db: database.db,
    gateway: sandboxWith({ chargeCard }),
    logger: false,
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
})

afterAll(async () => {
  release()
  await app?.close()
  await database?.drop()
})

const partner = (gateway: 'external' | 'own') => demo.find((p) => p.gateway === gateway) as DemoPartner

/** The error a call throws (it must throw). */
async function thrown(call: Promise<unknown>): Promise<AmparoError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(AmparoError)
  return error as AmparoError
}

/** The one line an AmparoError prints as, and what Node prints for it (the line, then frames). */
function expectOneLine(error: AmparoError) {
  const line = `${error.name} ${error.status} ${error.code}: ${error.message} (request_id ${error.requestId})`
  expect(String(error)).toBe(line)
  expect(inspect(error).split('\n')[0]).toBe(line)
}

const LANGUAGES = [
  {
    name: 'English (no language set)',
    language: undefined,
    contentLanguage: undefined,
    text: {
      document: /^The document (field )?(is|must)/i,
      notFound: 'Subscription not found.',
      unauthenticated: 'Unauthenticated.',
      declined: /^The card has insufficient funds\.$/,
      rateLimited: /^Too many declined card attempts/,
      inProgress: /in progress/i,
      unavailable:
        'The payment gateway did not answer; nothing was recorded. Retry after Retry-After seconds.',
      serverError: 'Server error.',
      noAnswer: 'failed',
    },
  },
  {
    name: "Portuguese (language: 'pt-BR')",
    language: 'pt-BR',
    contentLanguage: 'pt-BR',
    text: {
      document: /^O campo document deve ser um CPF ou CNPJ válido\.$/,
      notFound: 'Assinatura não encontrada.',
      unauthenticated: 'Não autenticado.',
      declined: /^O cartão não tem saldo suficiente\.$/,
      rateLimited: /^Tentativas de cartão recusadas demais/,
      inProgress: /em andamento/i,
      unavailable:
        'O gateway de pagamento não respondeu; nada foi registrado. Tente de novo após os segundos de Retry-After.',
      serverError: 'Erro no servidor.',
      noAnswer: 'sem resposta',
    },
  },
] as const

describe.each(LANGUAGES)('AmparoError in $name', ({ language, contentLanguage, text }) => {
  let external: AmparoClient
  let own: AmparoClient
  /** The own partner's client that does not retry 429 and 503, to see their AmparoError at once. */
  let ownAtOnce: AmparoClient
  beforeAll(() => {
    const options = (p: DemoPartner, maxRetries = 3) =>
      createAmparoClient({
        baseUrl,
        clientId: p.client_id,
        clientSecret: p.client_secret,
        language,
        maxRetries,
      })
    external = options(partner('external'))
    own = options(partner('own'))
    ownAtOnce = options(partner('own'), 0)
  })

  /** A new pending subscription of the own partner, for a card call. */
  async function pendingSubscription(): Promise<number> {
    const body = customerBody()
    await own.POST('/customers', { body: body as never })
    const { data: plans } = await own.GET('/plans')
    const { data: models } = await own.GET('/models')
    const { data } = await own.POST('/subscriptions', {
      body: {
        plan_id: plans[0]?.id as number,
        customer_document: body.document as string,
        model_id: models.data[0]?.id as number,
        serial_number: uniqueImei(),
      },
    })
    return data.id
  }
  const pay = (client: AmparoClient, subscriptionId: number, number: string) =>
    client.POST('/subscriptions/{subscriptionId}/payment', {
      params: { path: { subscriptionId } },
      body: { creditCard: { number, expiry: '1230', cvv: '123' } },
    })

  it('422: the message and every field error in the language, and the one line shows them', async () => {
    const error = await thrown(
      external.POST('/customers', {
        body: { name: 'Maria', document: '123.456.789-00', email: 'not-an-email', phone: '1' },
      }),
    )
    expect(error.status).toBe(422)
    expect(error.code).toBe('validation_failed')
    expect(error.errors.document?.[0]).toMatch(text.document)
    expect(Object.keys(error.errors)).toEqual(expect.arrayContaining(['document', 'email']))
    expect(error.message).toContain(error.errors.document?.[0] as string)
    expect(error.response?.headers.get('content-language') ?? undefined).toBe(contentLanguage)
    expectOneLine(error)
  })

  it('404: the resource named in the language', async () => {
    const error = await thrown(
      external.GET('/subscriptions/{subscriptionId}', { params: { path: { subscriptionId: 999_999 } } }),
    )
    expect([error.status, error.code, error.message]).toEqual([404, 'not_found', text.notFound])
    expectOneLine(error)
  })

  it('401: a refused login, in the language (the login carries Accept-Language too)', async () => {
    const stranger = createAmparoClient({ baseUrl, clientId: 'test_nobody', clientSecret: 'wrong', language })
    const error = await thrown(stranger.GET('/plans'))
    expect([error.status, error.code, error.message]).toEqual([401, 'unauthenticated', text.unauthenticated])
    expectOneLine(error)
  })

  it('402: a declined card, with its decline code and errors.creditCard in the language', async () => {
    const error = await thrown(pay(own, await pendingSubscription(), '4000000000009995'))
    expect([error.status, error.code, error.declineCode]).toEqual([
      402,
      'card_declined',
      'insufficient_funds',
    ])
    expect(error.message).toMatch(text.declined)
    expect(error.errors.creditCard?.[0]).toMatch(text.declined)
    expectOneLine(error)
  })

  it('429: the card-testing limit, with Retry-After, once the retries are spent', async () => {
    const subscriptionId = await pendingSubscription()
    for (let i = 0; i < 5; i += 1) {
      expect((await thrown(pay(own, subscriptionId, '4000000000000002'))).status).toBe(402)
    }
    const error = await thrown(pay(ownAtOnce, subscriptionId, '4000000000000002'))
    expect([error.status, error.code]).toEqual([429, 'rate_limited'])
    expect(error.message).toMatch(text.rateLimited)
    expect(Number(error.response?.headers.get('retry-after'))).toBeGreaterThan(0)
    expectOneLine(error)
  })

  it('409: a payment already in progress, with Retry-After (not retried: the first may still charge)', async () => {
    const subscriptionId = await pendingSubscription()
    charging = 'hang'
    const atGateway = new Promise<void>((resolve) => {
      reached = resolve
    })
    const first = pay(own, subscriptionId, '4111111111111111')
    try {
      await atGateway
      const error = await thrown(pay(own, subscriptionId, '4111111111111111'))
      expect([error.status, error.code]).toEqual([409, 'payment_in_progress'])
      expect(error.message).toMatch(text.inProgress)
      expect(Number(error.response?.headers.get('retry-after'))).toBeGreaterThan(0)
      expectOneLine(error)
    } finally {
      charging = 'sandbox'
      release()
    }
    expect((await first).data.status).toBe('pago')
  })

  it('503: the gateway unavailable, in the language, once the retries are spent', async () => {
    const subscriptionId = await pendingSubscription()
    charging = 'unavailable'
    try {
      const error = await thrown(pay(ownAtOnce, subscriptionId, '4111111111111111'))
      expect([error.status, error.code, error.message]).toEqual([
        503,
        'service_unavailable',
        text.unavailable,
      ])
      expect(error.response?.headers.get('retry-after')).toBe('5')
      expectOneLine(error)
    } finally {
      charging = 'sandbox'
    }
  })

  it('500: a server fault, in the language, with the request id of its body', async () => {
    const subscriptionId = await pendingSubscription()
    charging = 'crash'
    try {
      const error = await thrown(pay(own, subscriptionId, '4111111111111111'))
      expect([error.status, error.code, error.message]).toEqual([500, 'server_error', text.serverError])
      expect(error.requestId).toBe(error.response?.headers.get('x-request-id'))
      expectOneLine(error)
    } finally {
      charging = 'sandbox'
    }
  })

  it('no answer: AmparoConnectionError, its own message in the language', async () => {
    // A port just freed: nothing listens there (fetch refuses some ports outright, 9 among them).
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const closed = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`
    await new Promise((resolve) => probe.close(resolve))
    const nowhere = createAmparoClient({
      baseUrl: closed,
      clientId: 'test_x',
      clientSecret: 'y',
      language,
      maxRetries: 1,
    })
    const error = await thrown(nowhere.GET('/plans'))
    expect(error).toBeInstanceOf(AmparoConnectionError)
    expect([error.status, error.code]).toEqual([0, 'connection_failed'])
    expect(error.message).toMatch(new RegExp(`^POST ${closed}/auth/login ${text.noAnswer}: .*ECONNREFUSED`))
    expect(String(error)).toBe(`AmparoConnectionError connection_failed: ${error.message}`)
  })
})

describe('the client’s reading of Accept-Language (its own connection-failure message)', () => {
  it('agrees with the service’s for every header', () => {
    const headers = [
      undefined,
      '',
      'pt-BR',
      'pt',
      'PT-pt',
      'en',
      '*',
      'fr',
      'fr, pt-BR',
      'en;q=0.5, pt-BR',
      'pt-BR;q=0.5, en',
      'pt-BR;q=0.5, en;q=0.5',
      'en;q=0, pt',
      'pt;q=abc, en;q=0.1',
    ]
    for (const header of headers) {
      expect([header, prefersPortuguese(header)]).toEqual([header, languageOf(header) === 'pt-BR'])
    }
  })
})
