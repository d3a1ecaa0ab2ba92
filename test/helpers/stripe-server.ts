import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'

/**
 * A local Stripe-compatible server: the few endpoints the adapter calls, in Stripe's wire format
 * (form-encoded bodies, `Idempotency-Key` replay of the first answer, Stripe's error objects with
 * `type: card_error` and `decline_code`, a `request-id` on every answer), driven by the real
 * `stripe` library. It takes only the parameters Stripe's published OpenAPI document allows on
 * each endpoint (`PARAMS`): `payment_method_data[type]=card` is refused with 400
 * `invalid_request_error`, as Stripe's own mock server refuses it; a card becomes a PaymentMethod
 * (`POST /v1/payment_methods`), attached to the customer by a charge saved for later or a
 * SetupIntent, charged off session only by that customer, and detached on request. Cards behave as the sandbox's test cards (README); `THREE_D_SECURE` asks for
 * authentication. `slowNext(ms)` answers the next request late (after processing it);
 * `loseNext()` processes it and drops the connection without answering; `failNext(status)` answers
 * an API error without processing it; `holdNext()` processes it and answers when released; `latencyMs` delays every answer (a real gateway's speed).
 * Refunds (`POST /v1/refunds`) give back part or all of a succeeded PaymentIntent, never more.
 * PIX and boleto PaymentIntents answer `requires_action` with Stripe's `next_action` (a boleto only
 * with the payer Stripe requires), expiring by Stripe's rules at its `now`; `payCode` is the
 * customer paying, and `signedEvent` signs the event Stripe then sends, as Stripe signs it.
 */

const DECLINES: Record<string, string> = {
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
}
/** Approves its first charge, declines every off-session one (Stripe's 4000000000000341 declines at once). */
export const APPROVES_ONCE = '4000000000000341'
/** Stripe's "always authenticate" test card: the PaymentIntent is left `requires_action`. */
export const THREE_D_SECURE = '4000002760003184'

export interface Received {
  method: string
  path: string
  idempotencyKey: string | undefined
  params: Record<string, string>
  /** False when the answer was a replay of the key's first one. */
  processed: boolean
}

export interface PaymentIntent {
  id: string
  status: string
  amount: number
  customer: string
  payment_method: string | null
  off_session: boolean
  params: Record<string, string>
}

interface Answer {
  status: number
  body: unknown
}

export class StripeServer {
  readonly requests: Received[] = []
  readonly paymentIntents: PaymentIntent[] = []
  readonly customers: string[] = []
  readonly refunds: { id: string; payment_intent: string; amount: number; status?: 'failed' }[] = []
  /** Every answer waits this long (after processing): a gateway at real speed. */
  latencyMs = 0
  /** Stripe's time (real time unless a test moves it with the service's clock): a code's expiry is read from it. */
  now: () => Date = () => new Date()
  /** The key mode it accepts, as Stripe's test and live modes each accept only their own keys. */
  mode: 'test' | 'live' = 'test'
  /** The most requests it held at once: how parallel its clients were. */
  maxInFlight = 0
  private inFlight = 0
  private readonly answers = new Map<string, { params: string; answer: Answer }>()
  /** Payment methods: the card number's behaviour and the customer it is attached to. */
  private readonly methods = new Map<string, { number: string; customer: string | null }>()
  /** `POST /v1/payment_methods` made, without the card number and code. */
  readonly createdMethods: { id: string; params: Record<string, string> }[] = []
  private seq = 0
  private slowMs = 0
  private lose = 0
  private failStatus = 0
  private failTimes = 0
  private held: { path: string; arrived: () => void; released: Promise<void> } | null = null
  /** The path the next slow, lost or failed answer waits for. */
  private target = ''
  private server!: Server
  url = ''

  /** The service's environment for a Stripe gateway at this server (after start()). */
  env(claimSeconds: number): Record<string, string> {
    return {
      AMPARO_PAYMENT_GATEWAY: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_amparo0fake0key',
      STRIPE_API_URL: this.url,
      AMPARO_PAYMENT_CLAIM_SECONDS: String(claimSeconds),
    }
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res))
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise((resolve) => this.server.close(resolve))
  }

  /** The next request to `path` (by default a PaymentIntent's creation) is processed, then answered late. */
  slowNext(ms: number, path = '/v1/payment_intents'): void {
    this.slowMs = ms
    this.target = path
  }

  /**
   * The next request to `path` is processed, then its answer held until `release()`: `processed`
   * settles once the gateway's side is done (what a test does in between, the client has not seen).
   */
  holdNext(path = '/v1/payment_intents'): { processed: Promise<void>; release: () => void } {
    let arrived!: () => void
    const processed = new Promise<void>((resolve) => {
      arrived = resolve
    })
    let release!: () => void
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    this.held = { path, arrived, released }
    return { processed, release }
  }

  /** The next request to `path` is processed, then its connection dropped without an answer. */
  loseNext(path = '/v1/payment_intents', times = 1): void {
    this.lose = times
    this.target = path
  }

  /** The next `times` requests to `path` answer `status` without being processed. */
  failNext(status: number, path = '/v1/payment_intents', times = 1): void {
    this.failStatus = status
    this.failTimes = times
    this.target = path
  }

  /** Payment intents that took money. */
  get charges(): PaymentIntent[] {
    return this.paymentIntents.filter((pi) => pi.status === 'succeeded')
  }

  private id(prefix: string) {
    this.seq += 1
    return `${prefix}_fake${String(this.seq).padStart(6, '0')}`
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    this.inFlight += 1
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
    try {
      await this.answer(req, res)
    } finally {
      this.inFlight -= 1
    }
  }

  private async answer(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const raw = Buffer.concat(chunks).toString()
    const params = Object.fromEntries(new URLSearchParams(raw))
    const key = req.headers['idempotency-key'] as string | undefined
    const path = (req.url ?? '').split('?')[0] ?? ''
    const received: Received = {
      method: req.method ?? '',
      path,
      idempotencyKey: key,
      params: redacted(params),
      processed: true,
    }
    this.requests.push(received)
    res.setHeader('request-id', this.id('req'))
    res.setHeader('content-type', 'application/json')

    let answer: Answer
    const auth = req.headers.authorization ?? ''
    const targeted = path === this.target
    if (this.failStatus && targeted) {
      answer = apiError(this.failStatus)
      this.failTimes -= 1
      if (this.failTimes <= 0) this.failStatus = 0
    } else if (!new RegExp(`^Bearer [sr]k_${this.mode}_`).test(auth)) {
      answer = {
        status: 401,
        body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } },
      }
    } else {
      const first = key ? this.answers.get(`${path} ${key}`) : undefined
      if (first && first.params !== raw) {
        answer = {
          status: 400,
          body: {
            error: {
              type: 'idempotency_error',
              message:
                'Keys for idempotent requests can only be used with the same parameters they were first used with.',
            },
          },
        }
      } else if (first) {
        received.processed = false
        answer = first.answer
      } else {
        answer = this.process(req.method ?? '', path, params)
        if (key && answer.status < 500) this.answers.set(`${path} ${key}`, { params: raw, answer })
      }
    }

    if (this.held && this.held.path === path) {
      const { arrived, released } = this.held
      this.held = null
      arrived()
      await released
      if (res.destroyed || req.socket.destroyed) return
    }
    if (this.lose > 0 && targeted) {
      this.lose -= 1
      req.socket.destroy()
      return
    }
    if (this.slowMs && targeted) {
      const ms = this.slowMs
      this.slowMs = 0
      await new Promise((resolve) => setTimeout(resolve, ms))
      if (res.destroyed || req.socket.destroyed) return
    }
    if (this.latencyMs) await new Promise((resolve) => setTimeout(resolve, this.latencyMs))
    res.statusCode = answer.status
    res.end(JSON.stringify(answer.body))
  }

  private process(method: string, path: string, params: Record<string, string>): Answer {
    if (method !== 'POST') return notFound(path)
    const unknown = Object.keys(params).find((name) => !allowed(path, name))
    if (unknown) return invalid(`Received unknown parameter: ${unknown}`, 'parameter_unknown', unknown)
    if (path === '/v1/customers') {
      const id = this.id('cus')
      this.customers.push(id)
      return ok({ id, object: 'customer', metadata: metadataOf(params) })
    }
    if (path === '/v1/payment_methods') return this.paymentMethod(params)
    const detach = /^\/v1\/payment_methods\/([^/]+)\/detach$/.exec(path)
    if (detach) {
      const method = this.methods.get(detach[1] ?? '')
      if (!method?.customer) return invalid('The payment method is not attached to a customer.')
      method.customer = null
      return ok({ id: detach[1], object: 'payment_method', type: 'card', customer: null })
    }
    if (path === '/v1/payment_intents') return this.paymentIntent(params)
    const cancel = /^\/v1\/payment_intents\/([^/]+)\/cancel$/.exec(path)
    if (cancel) {
      const intent = this.paymentIntents.find((pi) => pi.id === cancel[1])
      if (!intent) return notFound(path)
      intent.status = 'canceled'
      return ok(intentBody(intent))
    }
    if (path === '/v1/setup_intents') return this.setupIntent(params)
    if (path === '/v1/refunds') return this.refund(params)
    return notFound(path)
  }

  /** `POST /v1/payment_methods` with raw card data: the number's behaviour is kept on the method. */
  private paymentMethod(params: Record<string, string>): Answer {
    const number = params['card[number]'] ?? ''
    const month = Number(params['card[exp_month]'])
    const year = Number(params['card[exp_year]'])
    if (
      params.type !== 'card' ||
      !/^\d{12,19}$/.test(number) ||
      !(month >= 1 && month <= 12) ||
      !(year >= 2000)
    ) {
      return invalid('Missing or wrong card parameters.')
    }
    if (!params['card[cvc]'])
      return invalid('Missing required param: card[cvc].', 'parameter_missing', 'card[cvc]')
    const id = this.id('pm')
    this.methods.set(id, { number, customer: null })
    this.createdMethods.push({ id, params: redacted(params) })
    return ok({
      id,
      object: 'payment_method',
      type: 'card',
      customer: null,
      card: { brand: number.startsWith('5') ? 'mastercard' : 'visa', last4: number.slice(-4) },
      metadata: metadataOf(params),
    })
  }

  /** A refund Stripe fails after taking it (its money back on the charge); the Refund, as events carry it. */
  failRefund(id: string): Record<string, unknown> {
    const refund = this.refunds.find((r) => r.id === id)
    if (!refund) throw new Error(`no refund ${id}`)
    refund.status = 'failed'
    return { ...refund, object: 'refund', currency: 'brl', failure_reason: 'expired_or_canceled_card' }
  }

  private refund(params: Record<string, string>): Answer {
    const intent = this.paymentIntents.find((pi) => pi.id === params.payment_intent)
    if (intent?.status !== 'succeeded') return invalid('No such payment_intent.')
    const amount = Number(params.amount ?? intent.amount)
    const refunded = this.refunds
      .filter((r) => r.payment_intent === intent.id && r.status !== 'failed')
      .reduce((s, r) => s + r.amount, 0)
    if (!(amount > 0) || refunded + amount > intent.amount) {
      return invalid('Refund amount is greater than the unrefunded amount on the charge.')
    }
    const refund = { id: this.id('re'), payment_intent: intent.id, amount }
    this.refunds.push(refund)
    return ok({ ...refund, object: 'refund', status: 'succeeded', currency: 'brl' })
  }

  /**
   * A PIX or boleto PaymentIntent, confirmed: `requires_action` with the code to show, as Stripe
   * answers it; paid later by `payCode` (the customer's bank), which Stripe announces by an event.
   */
  private codeIntent(params: Record<string, string>, type: 'pix' | 'boleto'): Answer {
    if (params.currency !== 'brl' || params.confirm !== 'true' || !/^\d+$/.test(params.amount ?? '')) {
      return invalid('Missing or wrong parameters.')
    }
    if (type === 'boleto') {
      // Stripe's boleto needs the payer's CPF/CNPJ, name, e-mail and full address (the bank prints them).
      const missing = BOLETO_REQUIRED.find((name) => !params[name])
      if (missing) return invalid(`Missing required param: ${missing}.`, 'parameter_missing', missing)
      if (
        !/^(\d{11}|\d{14})$/.test(params['payment_method_data[boleto][tax_id]']?.replace(/\D/g, '') ?? '')
      ) {
        return invalid(
          'Invalid tax_id: a CPF or CNPJ.',
          'parameter_invalid',
          'payment_method_data[boleto][tax_id]',
        )
      }
    }
    const intent: PaymentIntent = {
      id: this.id('pi'),
      status: 'requires_action',
      amount: Number(params.amount),
      customer: '',
      payment_method: null,
      off_session: false,
      params,
    }
    this.paymentIntents.push(intent)
    const now = this.now()
    const next_action =
      type === 'pix'
        ? {
            type: 'pix_display_qr_code',
            pix_display_qr_code: {
              data: `00020126360014BR.GOV.BCB.PIX0114${intent.id}5204000053039865802BR6304FAKE`,
              expires_at: pixExpiry(now, params),
              image_url_png: `https://qr.stripe.test/${intent.id}.png`,
              image_url_svg: `https://qr.stripe.test/${intent.id}.svg`,
              hosted_instructions_url: `https://payments.stripe.test/pix/${intent.id}`,
            },
          }
        : {
            type: 'boleto_display_details',
            boleto_display_details: {
              number: `23790${String(this.seq).padStart(42, '0')}`,
              pdf: `https://payments.stripe.test/boleto/${intent.id}/pdf`,
              hosted_voucher_url: `https://payments.stripe.test/boleto/${intent.id}`,
              expires_at: boletoExpiry(now, params),
            },
          }
    this.nextActions.set(intent.id, next_action)
    return ok({ ...intentBody(intent), metadata: metadataOf(params), next_action })
  }

  // biome-ignore lint/suspicious/noExplicitAny: Stripe's next_action, as answered, for a test to compare
  private readonly nextActions = new Map<string, any>()

  /** The `next_action` Stripe answered for a PIX or boleto PaymentIntent: the code the customer sees. */
  // biome-ignore lint/suspicious/noExplicitAny: as above
  displayed(intentId: string): any {
    const shown = this.nextActions.get(intentId)
    if (!shown) throw new Error(`no code shown for ${intentId}`)
    return shown
  }

  /** The customer paid the PIX code or boleto of `intentId`: succeeded, as Stripe's event will say. */
  payCode(intentId: string): PaymentIntent {
    const intent = this.paymentIntents.find((pi) => pi.id === intentId)
    if (!intent) throw new Error(`no PaymentIntent ${intentId}`)
    intent.status = 'succeeded'
    return intent
  }

  /** The signing secret of the webhook endpoint, as Stripe shows it for an endpoint. */
  readonly webhookSecret = 'whsec_amparoFakeStripeSecret0123456789'

  /**
   * A Stripe event about `object`, signed as Stripe signs deliveries (`Stripe-Signature`, by the
   * `stripe` library): `timestamp` (Unix seconds) and `secret` to forge a stale or wrong one.
   */
  signedEvent(
    type: string,
    object: Record<string, unknown>,
    {
      id = this.id('evt'),
      timestamp,
      secret = this.webhookSecret,
    }: { id?: string; timestamp?: number; secret?: string } = {},
  ): { id: string; payload: string; headers: Record<string, string> } {
    const payload = JSON.stringify({
      id,
      object: 'event',
      type,
      api_version: '2026-10-28.endive',
      created: Math.floor(Date.now() / 1000),
      data: { object },
    })
    const signature = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret,
      ...(timestamp && { timestamp }),
    })
    return { id, payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } }
  }

  /** A PaymentIntent as an event carries it. */
  intentObject(intent: PaymentIntent): Record<string, unknown> {
    return { ...intentBody(intent), metadata: metadataOf(intent.params) }
  }

  private paymentIntent(params: Record<string, string>): Answer {
    if (params['payment_method_data[type]'] === 'pix') return this.codeIntent(params, 'pix')
    if (params['payment_method_data[type]'] === 'boleto') return this.codeIntent(params, 'boleto')
    // Raw card fields in payment_method_data are refused, as Stripe's document and mock server refuse them.
    if (params['payment_method_data[type]'] !== undefined) {
      return invalid('Received unknown parameter: payment_method_data[type]', 'parameter_unknown')
    }
    const offSession = params.off_session === 'true'
    const method = params.payment_method ? this.methods.get(params.payment_method) : undefined
    if (
      params.currency !== 'brl' ||
      params.confirm !== 'true' ||
      !/^\d+$/.test(params.amount ?? '') ||
      !params.customer ||
      !this.customers.includes(params.customer) ||
      !method
    ) {
      return invalid('Missing or wrong parameters.')
    }
    // Stripe charges a customer's saved method off session only if it is attached to that customer.
    if (method.customer !== null && method.customer !== params.customer) {
      return invalid('The provided PaymentMethod belongs to another customer.')
    }
    if (offSession && method.customer !== params.customer) {
      return invalid('The provided PaymentMethod is not attached to this customer.')
    }
    const behaviour = method.number
    const intent: PaymentIntent = {
      id: this.id('pi'),
      status: 'succeeded',
      amount: Number(params.amount),
      customer: params.customer,
      payment_method: params.payment_method ?? null,
      off_session: offSession,
      params: redacted(params),
    }
    this.paymentIntents.push(intent)
    const decline =
      DECLINES[behaviour] ?? (offSession && behaviour === APPROVES_ONCE ? 'card_declined' : undefined)
    if (decline) {
      intent.status = 'requires_payment_method'
      return cardError(decline, { payment_intent: intentBody(intent) })
    }
    if (behaviour === THREE_D_SECURE) {
      if (offSession || params.error_on_requires_action === 'true') {
        intent.status = 'requires_payment_method'
        return cardError('authentication_required', { payment_intent: intentBody(intent) })
      }
      intent.status = 'requires_action'
      return ok(intentBody(intent))
    }
    if (params.setup_future_usage === 'off_session') method.customer = params.customer
    return ok(intentBody(intent))
  }

  private setupIntent(params: Record<string, string>): Answer {
    const method = params.payment_method ? this.methods.get(params.payment_method) : undefined
    if (
      params.confirm !== 'true' ||
      !params.customer ||
      !this.customers.includes(params.customer) ||
      !method ||
      params.usage !== 'off_session'
    ) {
      return invalid('Missing or wrong parameters.')
    }
    const id = this.id('seti')
    const decline = DECLINES[method.number]
    if (decline)
      return cardError(decline, {
        setup_intent: { id, object: 'setup_intent', status: 'requires_payment_method' },
      })
    const status = method.number === THREE_D_SECURE ? 'requires_action' : 'succeeded'
    if (status === 'succeeded') method.customer = params.customer
    return ok({
      id,
      object: 'setup_intent',
      status,
      customer: params.customer,
      payment_method: params.payment_method,
    })
  }

  /** Whether a saved method may still be charged by `customer` (attached, not detached). */
  attachedTo(paymentMethod: string): string | null {
    return this.methods.get(paymentMethod)?.customer ?? null
  }
}

/**
 * The parameters each endpoint takes, as Stripe's published OpenAPI document lists them (only
 * those the adapter may send): anything else is refused as Stripe refuses it, `payment_method_data`
 * with raw card fields included.
 */
const PARAMS: [RegExp, RegExp][] = [
  [/^\/v1\/customers$/, /^metadata\[[a-z_]+\]$/],
  [
    /^\/v1\/payment_methods$/,
    /^(type|card\[(number|exp_month|exp_year|cvc)\]|billing_details\[name\]|metadata\[[a-z_]+\])$/,
  ],
  [/^\/v1\/payment_methods\/[^/]+\/detach$/, /^$/],
  [
    /^\/v1\/payment_intents$/,
    /^(amount|currency|customer|payment_method|allowed_payment_method_types\[\d+\]|confirm|error_on_requires_action|off_session|setup_future_usage|payment_method_options\[card\]\[installments\]\[plan\]\[(count|interval|type)\]|payment_method_data\[type\]|payment_method_options\[pix\]\[expires_after_seconds\]|payment_method_options\[boleto\]\[expires_after_days\]|payment_method_data\[boleto\]\[tax_id\]|payment_method_data\[billing_details\]\[(name|email)\]|payment_method_data\[billing_details\]\[address\]\[(line1|city|state|postal_code|country)\]|metadata\[[a-z_]+\])$/,
  ],
  [/^\/v1\/payment_intents\/[^/]+\/cancel$/, /^$/],
  [
    /^\/v1\/setup_intents$/,
    /^(customer|payment_method|allowed_payment_method_types\[\d+\]|confirm|usage|metadata\[[a-z_]+\])$/,
  ],
  [/^\/v1\/refunds$/, /^(payment_intent|amount|reason|metadata\[[a-z_]+\])$/],
]

const BOLETO_REQUIRED = [
  'payment_method_data[boleto][tax_id]',
  'payment_method_data[billing_details][name]',
  'payment_method_data[billing_details][email]',
  'payment_method_data[billing_details][address][line1]',
  'payment_method_data[billing_details][address][city]',
  'payment_method_data[billing_details][address][state]',
  'payment_method_data[billing_details][address][postal_code]',
  'payment_method_data[billing_details][address][country]',
]

/** A PIX code lasts `expires_after_seconds` (Stripe's default: a day); Unix seconds. */
function pixExpiry(now: Date, params: Record<string, string>): number {
  const seconds = Number(params['payment_method_options[pix][expires_after_seconds]'] ?? 86_400)
  return Math.floor(now.getTime() / 1000) + seconds
}

/**
 * A boleto expires at 23:59 (São Paulo, UTC−3) of the `expires_after_days`th calendar day after
 * it is made (Stripe's default: 3), as Stripe documents `expires_after_days`; Unix seconds.
 */
function boletoExpiry(now: Date, params: Record<string, string>): number {
  const days = Number(params['payment_method_options[boleto][expires_after_days]'] ?? 3)
  const SAO_PAULO = -3 * 3600_000
  const local = new Date(now.getTime() + SAO_PAULO)
  const lastDay = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + days, 23, 59, 59)
  return Math.floor((lastDay - SAO_PAULO) / 1000)
}

function allowed(path: string, name: string): boolean {
  const entry = PARAMS.find(([route]) => route.test(path))
  return entry?.[1].test(name) ?? false
}

const ok = (body: unknown): Answer => ({ status: 200, body })
const notFound = (path: string): Answer => ({
  status: 404,
  body: { error: { type: 'invalid_request_error', message: `Unrecognized request URL (POST: ${path}).` } },
})
const invalid = (message: string, code?: string, param?: string): Answer => ({
  status: 400,
  body: { error: { type: 'invalid_request_error', message, ...(code && { code }), ...(param && { param }) } },
})

function apiError(status: number): Answer {
  const type = status < 500 ? 'invalid_request_error' : 'api_error'
  const code = status === 429 ? 'rate_limit' : undefined
  return { status, body: { error: { type, code, message: `Fake Stripe answered ${status}.` } } }
}

function cardError(declineCode: string, extra: Record<string, unknown>): Answer {
  const code =
    declineCode === 'expired_card' || declineCode === 'authentication_required'
      ? declineCode
      : 'card_declined'
  return {
    status: 402,
    body: {
      error: {
        type: 'card_error',
        code,
        decline_code: declineCode,
        message: 'Your card was declined.',
        ...extra,
      },
    },
  }
}

function intentBody(intent: PaymentIntent) {
  return {
    id: intent.id,
    object: 'payment_intent',
    status: intent.status,
    amount: intent.amount,
    currency: 'brl',
    customer: intent.customer,
    payment_method: intent.payment_method,
  }
}

function metadataOf(params: Record<string, string>) {
  return Object.fromEntries(
    Object.entries(params).flatMap(([k, v]) => {
      const m = /^metadata\[(.+)\]$/.exec(k)
      return m ? [[m[1], v]] : []
    }),
  )
}

/** What a test may look at of a request: never the card number or code, which a real server keeps. */
function redacted(params: Record<string, string>) {
  const { 'card[number]': _n, 'card[cvc]': _c, ...rest } = params
  return rest
}
