import { existsSync, readFileSync } from 'node:fs'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { isPostgres } from '../src/db/database.js'
import { gatewayOf, loadKeyNamespace } from '../src/modules/payments/gateway-factory.js'
import type { PaymentGateway } from '../src/modules/payments/payment-gateway.js'
import type { Clock } from '../src/shared/time.js'
import { runRecurrence } from '../src/worker/recurrence.job.js'
import { APPROVES_ONCE, StripeServer, THREE_D_SECURE } from './helpers/stripe-server.js'
import { buildCheckedApp, useTestApp } from './helpers/test-app.js'
import {
  ANNUAL,
  bearer,
  createCustomer,
  login,
  partnerWithToken,
  seedCatalog,
  seedPlan,
  type TestPartner,
  TOTAL_12X,
} from './helpers/world.js'

// The Stripe adapter through the real `stripe` library, against a local Stripe-compatible server,
// with the app configured as an operator would: AMPARO_PAYMENT_GATEWAY=stripe and STRIPE_*.

const START = new Date('2026-11-21T15:00:00.000Z')
let now = START
const clock: Clock = { now: () => now }
const DAY = 86_400_000
const CLAIM_SECONDS = 60

const VISA = '4111111111111111'
const MASTERCARD = '5555555555554444'
const INSUFFICIENT = '4000000000009995'
const DECLINED = '4000000000000002'
const CVV = '9876'
const card = (number: string) => ({ creditCard: { number, expiry: '1230', cvv: CVV } })
const NUMBERS = [VISA, MASTERCARD, INSUFFICIENT, DECLINED, APPROVES_ONCE, THREE_D_SECURE]

const server = new StripeServer()
/** This database's namespace of Stripe idempotency keys. */
let namespace = ''
/** The same service with a gateway that gives up after 400 ms, for the timeout. */
let impatient: App
const logLines: string[] = []
const logStream = { write: (line: string) => void logLines.push(line) }

interface Party {
  partner: TestPartner
  token: string
  planId: number
  annualPlanId: number
  modelId: number
}

// Registered first, so that its after hook runs last, once the apps have closed.
beforeAll(() => server.start())
afterAll(() => server.stop())
const ctx = useTestApp(() => ({
  clock,
  logStream,
  // A file, not memory, on SQLite: the last test reads the file and its WAL byte by byte.
  onDisk: true,
  env: { ...server.env(CLAIM_SECONDS), LOG_LEVEL: 'trace' },
}))
beforeAll(async () => {
  await seedCatalog(ctx.db)
  namespace = await loadKeyNamespace(ctx.db)
  const slowGateway = await gatewayOf(ctx.config, ctx.db, { timeoutMs: 400, maxNetworkRetries: 0 })
  impatient = await buildCheckedApp({
    config: ctx.config,
    db: ctx.db,
    clock,
    gateway: slowGateway,
    logStream,
  })
})
afterAll(() => impatient?.close())

async function party(mode: 'own' | 'external' = 'own'): Promise<Party> {
  const { partner, token } = await partnerWithToken(ctx.app, ctx.db, mode)
  const plan = await seedPlan(ctx.db, partner.id, TOTAL_12X, START.toISOString())
  const annual = await seedPlan(ctx.db, partner.id, ANNUAL, START.toISOString())
  await createCustomer(ctx.app, token)
  const model = await ctx.db
    .selectFrom('models')
    .select('id')
    .where('name', '=', 'Galaxy S25')
    .executeTakeFirstOrThrow()
  return { partner, token, planId: plan.id, annualPlanId: annual.id, modelId: model.id }
}

const call = (on: App, method: 'GET' | 'POST' | 'PUT', url: string, token: string, payload?: object) =>
  on.inject({ method, url, headers: bearer(token), ...(payload && { payload }) })

async function contract(p: Party): Promise<{ id: number; installments: { id: number; status: string }[] }> {
  const created = await call(ctx.app, 'POST', '/subscriptions', p.token, {
    plan_id: p.planId,
    customer_document: '52998224725',
    model_id: p.modelId,
  })
  expect(created.statusCode, created.body).toBe(201)
  const { id } = created.json()
  return { id, installments: await installments(p, id) }
}

/** Read from the database: the partner's token does not outlive the clock's jumps. */
async function installments(_p: Party, id: number) {
  return ctx.db
    .selectFrom('installments')
    .select(['id', 'status'])
    .where('subscription_id', '=', id)
    .orderBy('number')
    .execute()
}

const pay = (p: Party, id: number, number: string, on = ctx.app) =>
  call(on, 'POST', `/subscriptions/${id}/payment`, p.token, card(number))
const updateCard = (p: Party, id: number, number: string) =>
  call(ctx.app, 'PUT', `/subscriptions/${id}/card`, p.token, card(number))

async function paidSubscription(p: Party, number = VISA) {
  const s = await contract(p)
  const paid = await pay(p, s.id, number)
  expect(paid.statusCode, paid.body).toBe(200)
  return s
}

const recurrence = () =>
  runRecurrence({
    db: ctx.db,
    clock,
    timeZone: ctx.config.timeZone,
    gateway: ctx.app.gateway as PaymentGateway,
    claimSeconds: CLAIM_SECONDS,
  })

const keyed = (suffix: string) => server.requests.filter((r) => r.idempotencyKey === `${namespace}-${suffix}`)

describe('first payment of a subscription', () => {
  it('creates the customer once, charges with the card saved for later, and shows the card', async () => {
    now = START
    const p = await party()
    const s = await paidSubscription(p)
    const body = (await call(ctx.app, 'GET', `/subscriptions/${s.id}`, p.token)).json()
    expect(body).toMatchObject({ status: 'pago', card: { brand: 'visa', last4: '1111' } })

    const [first] = s.installments
    const charge = keyed(`installment-${first?.id}-charge-1`)
    expect(charge).toHaveLength(1)
    expect(charge[0]).toMatchObject({
      path: '/v1/payment_intents',
      params: {
        amount: '7799',
        currency: 'brl',
        confirm: 'true',
        error_on_requires_action: 'true',
        setup_future_usage: 'off_session',
        'allowed_payment_method_types[0]': 'card',
        payment_method: expect.stringMatching(/^pm_/),
        'metadata[amparo_partner_id]': String(p.partner.id),
        'metadata[amparo_reference]': `subscription-${s.id}-installment-1`,
      },
    })
    // The card became a PaymentMethod first, under a key derived from the same charge.
    const method = server.requests.find((r) => r.path === '/v1/payment_methods')
    const made = server.createdMethods.find((m) => m.id === charge[0]?.params.payment_method)
    expect(made?.params).toMatchObject({
      type: 'card',
      'card[exp_month]': '12',
      'card[exp_year]': '2030',
      'metadata[amparo_partner_id]': String(p.partner.id),
    })
    expect(method?.idempotencyKey).toBe(
      `${namespace}-installment-${first?.id}-charge-1-payment-method-1111-122030`,
    )
    const customerCalls = server.requests.filter((r) => r.path === '/v1/customers')
    const customerKey = customerCalls.at(-1)?.idempotencyKey
    expect(customerKey).toMatch(new RegExp(`^${namespace}-customer-\\d+$`))
    expect(customerCalls.at(-1)?.params).toMatchObject({
      'metadata[amparo_partner_id]': String(p.partner.id),
    })

    // A second subscription of the same customer: no second Stripe customer.
    await paidSubscription(p, MASTERCARD)
    expect(server.requests.filter((r) => r.idempotencyKey === customerKey)).toHaveLength(1)
    const stored = await ctx.db
      .selectFrom('subscriptions')
      .select(['card_token', 'card_brand', 'card_last4'])
      .where('id', '=', s.id)
      .executeTakeFirstOrThrow()
    expect(stored).toEqual({
      card_token: expect.stringMatching(/^pm_/),
      card_brand: 'visa',
      card_last4: '1111',
    })
  })

  it('answers a card_error with its decline_code, and a later try uses a new idempotency key', async () => {
    const p = await party()
    const s = await contract(p)
    const declined = await pay(p, s.id, INSUFFICIENT)
    expect(declined.statusCode).toBe(402)
    expect(declined.json()).toMatchObject({ decline_code: 'insufficient_funds' })
    expect((await installments(p, s.id))[0]?.status).toBe('refused')
    expect((await pay(p, s.id, VISA)).statusCode).toBe(200)
    const first = s.installments[0]?.id
    expect(keyed(`installment-${first}-charge-1`)).toHaveLength(1)
    expect(keyed(`installment-${first}-charge-2`)).toHaveLength(1)
  })

  it('asks Stripe to fail a charge needing 3-D Secure, and answers authentication_required', async () => {
    const p = await party()
    const s = await contract(p)
    const response = await pay(p, s.id, THREE_D_SECURE)
    expect(response.statusCode, response.body).toBe(402)
    expect(response.json()).toMatchObject({ decline_code: 'authentication_required' })
    const [charge] = keyed(`installment-${s.installments[0]?.id}-charge-1`)
    expect(charge?.params.error_on_requires_action).toBe('true')
    expect(server.requests.at(-1)?.path).toBe('/v1/payment_intents')
    expect((await installments(p, s.id))[0]?.status).toBe('refused')
  })
})

describe('an annual plan', () => {
  it('is charged once in the issuer’s installments, not saved for later', async () => {
    const p = await party()
    const created = await call(ctx.app, 'POST', '/annual-plans', p.token, {
      model_id: p.modelId,
      customer_document: '52998224725',
      plan_id: p.annualPlanId,
      imei: '490154203237518',
    })
    expect(created.statusCode, created.body).toBe(201)
    const { id, premium } = created.json()
    const paid = await call(ctx.app, 'POST', `/annual-plans/${id}/payment`, p.token, {
      card_number: VISA,
      card_holder: 'MARIA',
      card_expiry: '12/30',
      card_cvv: CVV,
      installments: 3,
    })
    expect(paid.statusCode, paid.body).toBe(200)
    expect(paid.json()).toMatchObject({ status: 'paid' })
    const [charge] = keyed(`annual-plan-${id}-charge-1`)
    expect(charge?.params).toMatchObject({
      amount: String(Math.round(premium * 100)),
      'payment_method_options[card][installments][plan][count]': '3',
      'payment_method_options[card][installments][plan][interval]': 'month',
      'payment_method_options[card][installments][plan][type]': 'fixed_count',
    })
    expect(charge?.params.setup_future_usage).toBeUndefined()
    expect(server.createdMethods.find((m) => m.id === charge?.params.payment_method)?.params).toMatchObject({
      'billing_details[name]': 'MARIA',
      'metadata[amparo_reference]': `annual-plan-${id}`,
    })
  })
})

describe('the recurrence', () => {
  it('charges the saved payment method off session on the due date', async () => {
    now = START
    const p = await party()
    const s = await paidSubscription(p)
    now = new Date(START.getTime() + 31 * DAY)
    const result = await recurrence()
    expect(result).toMatchObject({ charged: expect.any(Number), errors: 0 })
    const second = s.installments[1]?.id
    const [charge] = keyed(`installment-${second}-charge-1`)
    expect(charge?.params).toMatchObject({
      amount: '7799',
      off_session: 'true',
      confirm: 'true',
      payment_method: expect.stringMatching(/^pm_/),
      customer: expect.stringMatching(/^cus_/),
    })
    expect((await installments(p, s.id))[1]?.status).toBe('paid')
    now = START
  })
})

describe('PUT /subscriptions/{id}/card', () => {
  it('verifies without charging, keeps the card, then charges what is due, oldest first', async () => {
    now = START
    const p = await party()
    const s = await paidSubscription(p, APPROVES_ONCE)
    now = new Date(START.getTime() + 31 * DAY)
    expect(await recurrence()).toMatchObject({ declined: expect.any(Number) })
    expect((await installments(p, s.id))[1]?.status).toBe('pending')
    p.token = await login(ctx.app, p.partner)

    const declined = await updateCard(p, s.id, DECLINED)
    expect(declined.statusCode, declined.body).toBe(402)
    expect(declined.json()).toMatchObject({ decline_code: 'card_declined' })
    expect((await call(ctx.app, 'GET', `/subscriptions/${s.id}`, p.token)).json().card).toEqual({
      brand: 'visa',
      last4: '0341',
    })

    const before = server.requests.length
    const oldCard = (
      await ctx.db
        .selectFrom('subscriptions')
        .select('card_token')
        .where('id', '=', s.id)
        .executeTakeFirstOrThrow()
    ).card_token
    const updated = await updateCard(p, s.id, MASTERCARD)
    expect(updated.statusCode, updated.body).toBe(200)
    expect(updated.json()).toMatchObject({ status: 'pago', card: { brand: 'mastercard', last4: '4444' } })
    const calls = server.requests.slice(before)
    expect(calls.map((r) => r.path)).toEqual([
      '/v1/payment_methods',
      '/v1/setup_intents',
      `/v1/payment_methods/${oldCard}/detach`,
      '/v1/payment_intents',
    ])
    // The declined check was number 1: keys come from the check's number and the card, never at random.
    expect(calls.map((r) => r.idempotencyKey)).toEqual([
      `${namespace}-subscription-${s.id}-card-check-2-4444-122030-payment-method`,
      `${namespace}-subscription-${s.id}-card-check-2-4444-122030-setup-intent`,
      `${namespace}-subscription-${s.id}-card-check-2-4444-122030-detach`,
      expect.any(String),
    ])
    expect(calls[1]?.params).toMatchObject({
      usage: 'off_session',
      confirm: 'true',
      payment_method: calls[3]?.params.payment_method,
      'allowed_payment_method_types[0]': 'card',
    })
    expect(server.attachedTo(oldCard ?? '')).toBeNull()
    const second = s.installments[1]?.id
    // The recurrence's declined charge was number 1; the card update's is number 2.
    expect(keyed(`installment-${second}-charge-2`)[0]?.params).toMatchObject({ off_session: 'true' })
    expect((await installments(p, s.id)).map((i) => i.status).slice(0, 3)).toEqual([
      'paid',
      'paid',
      'pending',
    ])
    now = START
  })

  it('refuses a pending or canceled subscription, an external partner, another partner’s', async () => {
    now = START
    const p = await party()
    const pending = await contract(p)
    const refused = await updateCard(p, pending.id, VISA)
    expect(refused.statusCode).toBe(422)
    expect(Object.keys(refused.json().errors)).toEqual(['status'])

    const canceled = await paidSubscription(p)
    expect(
      (await call(ctx.app, 'POST', `/subscriptions/${canceled.id}/cancellation`, p.token)).statusCode,
    ).toBe(200)
    expect(Object.keys((await updateCard(p, canceled.id, VISA)).json().errors)).toEqual(['status'])

    const stranger = await party()
    expect((await updateCard(stranger, canceled.id, VISA)).statusCode).toBe(404)

    const external = await party('external')
    const theirs = await contract(external)
    const wrongMode = await updateCard(external, theirs.id, VISA)
    expect(wrongMode.statusCode).toBe(422)
    expect(Object.keys(wrongMode.json().errors)).toEqual(['gateway'])
  })
})

describe('when Stripe does not answer', () => {
  it('a lost answer is retried with the same idempotency key: exactly one charge', async () => {
    now = START
    const p = await party()
    const s = await contract(p)
    server.loseNext()
    let paid = await pay(p, s.id, VISA)
    // The library resends on the dropped connection; should its resend fail too (a busy machine),
    // the partner hears 503 and its retry, at once, sends the same key.
    if (paid.statusCode === 503) paid = await pay(p, s.id, VISA)
    expect(paid.statusCode, paid.body).toBe(200)
    const first = s.installments[0]?.id
    const sent = keyed(`installment-${first}-charge-1`)
    expect(sent[0]?.processed).toBe(true)
    expect(sent.length).toBeGreaterThanOrEqual(2)
    expect(sent.slice(1).every((r) => !r.processed)).toBe(true)
    expect(
      server.charges.filter(
        (pi) => pi.params['metadata[amparo_reference]'] === `subscription-${s.id}-installment-1`,
      ),
    ).toHaveLength(1)
  })

  it('a timeout answers 503 with Retry-After ≤ 5 s, and a retry at once settles the same charge', async () => {
    now = START
    const p = await party()
    const s = await contract(p)
    server.slowNext(1_500)
    const timedOut = await pay(p, s.id, VISA, impatient)
    expect(timedOut.statusCode, timedOut.body).toBe(503)
    expect(timedOut.json()).toMatchObject({ code: 'service_unavailable' })
    expect(Number(timedOut.headers['retry-after'])).toBeLessThanOrEqual(5)
    expect((await installments(p, s.id))[0]?.status).toBe('pending')
    const ledger = await ctx.db
      .selectFrom('payments')
      .selectAll()
      .where('subscription_id', '=', s.id)
      .execute()
    expect(ledger).toEqual([])

    // At once, with the same card: the unanswered attempt is sent again and its answer is this one's.
    const retried = await pay(p, s.id, VISA, impatient)
    expect(retried.statusCode, retried.body).toBe(200)
    expect(retried.json()).toMatchObject({ status: 'pago', card: { brand: 'visa', last4: '1111' } })
    const first = s.installments[0]?.id
    expect(keyed(`installment-${first}-charge-1`).map((r) => r.processed)).toEqual([true, false])
    expect(
      server.charges.filter(
        (pi) => pi.params['metadata[amparo_reference]'] === `subscription-${s.id}-installment-1`,
      ),
    ).toHaveLength(1)
  })

  it('a retry with another card after a timeout records the unanswered charge first, and is not answered for it', async () => {
    now = START
    const p = await party()
    const s = await contract(p)
    server.slowNext(1_500)
    expect((await pay(p, s.id, VISA, impatient)).statusCode).toBe(503)

    // The visa's charge went through: it is recorded, and the mastercard is told the installment is paid.
    const other = await pay(p, s.id, MASTERCARD, impatient)
    expect(other.statusCode, other.body).toBe(422)
    expect(other.json()).toMatchObject({ code: 'invalid_state' })
    const shown = await ctx.app.inject({ url: `/subscriptions/${s.id}`, headers: bearer(p.token) })
    expect(shown.json()).toMatchObject({ status: 'pago', card: { brand: 'visa', last4: '1111' } })
    expect(
      server.charges.filter(
        (pi) => pi.params['metadata[amparo_reference]'] === `subscription-${s.id}-installment-1`,
      ),
    ).toHaveLength(1)
  })

  it('a 409 payment_in_progress carries Retry-After', async () => {
    now = START
    const p = await party()
    const s = await contract(p)
    server.slowNext(600)
    const [a, b] = await Promise.all([pay(p, s.id, VISA), pay(p, s.id, VISA)])
    const busy = [a, b].find((r) => r.statusCode === 409)
    expect([a, b].map((r) => r.statusCode).sort()).toEqual([200, 409])
    expect(busy?.json()).toMatchObject({ code: 'payment_in_progress' })
    expect(Number(busy?.headers['retry-after'])).toBeGreaterThan(0)
  })

  it.each([429, 500])('Stripe’s %i answers 503 and logs its request id, writing nothing', async (status) => {
    now = START
    const p = await party()
    const s = await contract(p)
    const before = logLines.length
    server.failNext(status)
    // 500 is retried once by the library with the same key: fail that one too.
    const failing = status === 500 ? impatient : ctx.app
    const response = await pay(p, s.id, VISA, failing)
    expect(response.statusCode, response.body).toBe(503)
    expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(5)
    const logged = logLines.slice(before).join('')
    expect(logged).toContain('payment gateway unavailable')
    expect(logged).toMatch(/"stripe_request_id":"req_fake\d+"/)
    const ledger = await ctx.db
      .selectFrom('payments')
      .selectAll()
      .where('subscription_id', '=', s.id)
      .execute()
    expect(ledger).toEqual([])
  })

  it.each([400, 401])(
    'Stripe refusing the request (%i invalid_request_error) answers 502 gateway_error, logged with its request id',
    async (status) => {
      now = START
      const p = await party()
      const s = await contract(p)
      const before = logLines.length
      server.failNext(status)
      const response = await pay(p, s.id, VISA)
      expect(response.statusCode, response.body).toBe(502)
      expect(response.json()).toMatchObject({ code: 'gateway_error', request_id: expect.any(String) })
      const logged = logLines.slice(before).join('')
      expect(logged).toContain('payment gateway refused the request')
      expect(logged).toMatch(/"stripe_request_id":"req_fake\d+"/)
      expect((await installments(p, s.id))[0]?.status).toBe('pending')
      // Nothing is held: the next try goes through.
      expect((await pay(p, s.id, VISA)).statusCode).toBe(200)
    },
  )
})

describe('card data at rest and in logs, after the Stripe suite', () => {
  it('appears in no table and no log line', async () => {
    const current = isPostgres(ctx.db)
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(ctx.db)).rows[0]?.schema
      : undefined
    const tables = (await ctx.db.introspection.getTables()).filter((t) => t.schema === current)
    const dump: string[] = []
    for (const table of tables) {
      dump.push(
        JSON.stringify(
          await ctx.db
            .selectFrom(table.name as 'payments')
            .selectAll()
            .execute(),
        ),
      )
    }
    const everything = dump.join('\n')
    expect(everything).toContain('"card_last4":"4444"')
    expect(everything).toContain('"gateway_customer_id":"cus_')
    const logs = logLines.join('')
    expect(logs).toContain('/card')
    const cvv = new RegExp(`(?<![0-9a-fA-F-])${CVV}(?![0-9a-fA-F-])`)
    for (const [where, text] of [
      ['database', everything],
      ['logs', logs],
    ] as const) {
      for (const number of NUMBERS) expect(text.includes(number), `${number} in ${where}`).toBe(false)
      expect(cvv.test(text), `security code in ${where}`).toBe(false)
    }
    // The bytes on disk too, pages and write-ahead log (freed pages keep what was written there).
    if (!isPostgres(ctx.db)) {
      const sqliteFile = ctx.env.AMPARO_SQLITE_FILE as string
      const files = [sqliteFile, `${sqliteFile}-wal`].filter((file) => existsSync(file))
      expect(files).toContain(sqliteFile)
      const bytes = files.map((file) => readFileSync(file).toString('latin1'))
      // What was stored is there to be found (in the WAL until a checkpoint, then in the file).
      expect(bytes.join('')).toContain('cus_')
      for (const [i, file] of files.entries()) {
        for (const number of NUMBERS) expect(bytes[i]?.includes(number), `${number} in ${file}`).toBe(false)
      }
    }
  })
})
