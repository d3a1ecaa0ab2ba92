import { setTimeout as sleep } from 'node:timers/promises'
import type { KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { findAnnualPlanRow } from '../src/modules/annual-plans/annual-plan.repository.js'
import { recordNotifiedPayment } from '../src/modules/annual-plans/annual-plan-payment.service.js'
import { renderingContext } from '../src/modules/events/event.service.js'
import type { PaymentGateway } from '../src/modules/payments/payment-gateway.js'
import { SandboxGateway } from '../src/modules/payments/sandbox-gateway.js'
import type { AnnualPlan } from './helpers/api-types.js'
import { type ErrorBody, type PageBody, uniqueImei, annualCard as VISA } from './helpers/bodies.js'
import { imei } from './helpers/documents.js'
import { expectedError } from './helpers/errors.js'
import { sandboxWith } from './helpers/gateways.js'
import { buildCheckedApp, useTestApp } from './helpers/test-app.js'
import { withPlugin } from './helpers/test-db.js'
import {
  bearer,
  type PlanTemplate,
  ANNUAL as SHARED_ANNUAL,
  seedCatalog,
  seller,
  type Seller as WorldSeller,
} from './helpers/world.js'

// Expected amounts are worked out by hand in cents: LMI (cents) × rate (bp) ÷ 10000, half-up.
// Times: São Paulo is UTC−3 all year (no daylight saving since 2019).

type Json = Record<string, unknown>
// 15:04:05 UTC is 12:04:05 in São Paulo.
const NOW = new Date('2026-11-21T15:04:05.000Z')
const COVERAGES = ['Roubo e furto qualificado', 'Quebra acidental']
const ANNUAL: PlanTemplate = { ...SHARED_ANNUAL, coverages: COVERAGES }
const PREMIUM: PlanTemplate = {
  ...ANNUAL,
  name: 'Anual Premium',
  annualRateBp: 1500,
  isDefault: false,
}
const MARIA = '529.982.247-25'

const IMEI = '490154203237518'

/** The same service on the same database, deployed without card payments. */
let noGatewayApp: App
let now = NOW
const clock = { now: () => now }
let charges = 0
let pro: number

/** The sandbox, counting charges and yielding before answering as a real gateway would. */
const sandbox = new SandboxGateway()
const gateway: PaymentGateway = sandboxWith({
  async chargeCard(charge) {
    charges += 1
    await sleep(5)
    return sandbox.chargeCard(charge)
  },
})

function call(
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  token: string | null,
  payload?: unknown,
  on = ctx.app,
) {
  return on.inject({
    method,
    url,
    headers: token ? bearer(token) : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  })
}

async function ok<T>(method: 'GET' | 'POST', url: string, token: string, payload?: unknown): Promise<T> {
  const response = await call(method, url, token, payload)
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(200)
  return response.json() as T
}

/** The 422's `errors`, after checking the Laravel message is the first error's text. */
async function refused(method: 'POST', url: string, token: string, payload?: unknown, status = 422) {
  const response = await call(method, url, token, payload)
  expect(response.statusCode, response.body).toBe(status)
  const body = response.json() as ErrorBody
  expect(body.message.startsWith(Object.values(body.errors ?? {})[0]?.[0] ?? '-')).toBe(true)
  return body
}

/** The world's seller, with its matrix store's id. */
type Seller = WorldSeller & { matrix: number }

async function sellerOf(kind: 'external' | 'own', plans = [ANNUAL, PREMIUM]): Promise<Seller> {
  const s = await seller(ctx, { partner: kind, plans, plansAt: NOW.toISOString() })
  const stores = await ok<PageBody<{ id: number; matrix: boolean }>>('GET', '/shopkeepers', s.token)
  return { ...s, matrix: stores.data.find((store) => store.matrix)?.id ?? 0 }
}

const body = (s: Seller, extra: Json = {}): Json => ({
  model_id: pro,
  customer_id: s.customerId,
  imei: uniqueImei(),
  // Required of external partners, ignored for own ones.
  payment: { method: 'pix' },
  ...extra,
})

async function contract(s: Seller, extra: Json = {}): Promise<AnnualPlan> {
  const response = await call('POST', '/annual-plans', s.token, body(s, extra))
  expect(response.statusCode, response.body).toBe(201)
  return response.json() as AnnualPlan
}

const pay = (s: Seller, id: number, card: Json = VISA) =>
  call('POST', `/annual-plans/${id}/payment`, s.token, card)
const notify = (s: Seller, id: number) => call('POST', `/annual-plans/${id}/notify-payment`, s.token)

async function ledger(planId: number) {
  return ctx.db
    .selectFrom('payments')
    .select([
      'partner_id',
      'subscription_id',
      'installment_id',
      'amount',
      'route',
      'outcome',
      'decline_code',
      'transaction_id',
    ])
    .where('annual_plan_id', '=', planId)
    .orderBy('id')
    .execute()
}

/** Runs `fn` with the clock at `iso` and a token issued then; puts the clock back afterwards. */
async function at<T>(iso: string, s: Seller, fn: (token: string) => Promise<T>): Promise<T> {
  now = new Date(iso)
  try {
    return await fn(await s.login())
  } finally {
    now = NOW
  }
}

// Every clock jump logs in again, far more often than the login limit allows a client.
const ctx = useTestApp({ clock, gateway, env: { AMPARO_LOGIN_RATE_LIMIT: '100000' } })
beforeAll(async () => {
  noGatewayApp = await buildCheckedApp({
    config: ctx.config,
    db: ctx.db,
    clock,
    gateway: null,
    logger: false,
  })
  pro = (await seedCatalog(ctx.db)).model('iPhone 16 Pro').id
})
afterAll(async () => {
  await noGatewayApp?.close()
})

describe('annual plans', () => {
  let ext: Seller
  let own: Seller
  let other: Seller
  let base: string

  beforeAll(async () => {
    ext = await sellerOf('external')
    own = await sellerOf('own')
    other = await sellerOf('external')
    const stores = await ok<PageBody<unknown>>('GET', '/shopkeepers', ext.token)
    base = stores.meta.path.replace(/\/shopkeepers$/, '')
  })

  describe('POST /annual-plans', () => {
    it('answers 201 with the resource, priced as the annual quote for the same inputs', async () => {
      const quote = await ok<Json>(
        'GET',
        `/annual-plans/quote?model_id=${pro}&maxima=6543.21&used=true`,
        ext.token,
      )
      // 654321 × 1100 bp × 11500 bp = 82771.6065 → 82772
      expect(quote).toEqual({
        model: { id: pro, name: 'iPhone 16 Pro' },
        // The plan a contract without plan_id gets: what a client sends as plan_id.
        plan: { id: ext.annualPlanId, name: 'Proteção Anual', coverages: COVERAGES },
        premium: 827.72,
        lmi: 6543.21,
      })
      const created = await contract(ext, {
        customer_id: undefined,
        customer_document: MARIA,
        imei: '49-015420-323751-8',
        imei_2: imei(1),
        is_used: true,
        store_id: ext.matrix,
        maxima: 6543.21,
        payment: { method: 'credit_card', installments: 10 },
      })
      const customer = await ok<Json>('GET', `/customers/${MARIA.replace(/\D/g, '')}`, ext.token)
      expect(created).toEqual({
        id: expect.any(Number),
        status: 'awaiting_payment',
        lmi: quote.lmi,
        premium: quote.premium,
        // The plan has no franchise rate.
        franchise: 0,
        policy_number: null,
        certificate: null,
        plan: { id: ext.annualPlanId, name: 'Proteção Anual', coverages: COVERAGES },
        customer,
        model: {
          id: pro,
          name: 'iPhone 16 Pro',
          brand: {
            id: expect.any(Number),
            name: 'Apple',
            meta: { link: expect.stringMatching(/\/brands\/\d+$/) },
          },
          meta: { link: `${base}/models/${pro}` },
        },
        imei: IMEI,
        imei_2: imei(1),
        is_used: true,
        store_id: ext.matrix,
        payment: { method: 'credit_card', installments: 10 },
        paid_at: null,
        paid_with: null,
        starts_at: null,
        ends_at: null,
        cancellation: null,
        created_at: '2026-11-21 12:04:05',
        updated_at: '2026-11-21 12:04:05',
      })
      expect(await ok('GET', `/annual-plans/${created.id}`, ext.token)).toEqual(created)
    })

    it('uses the default annual plan without plan_id, and the named one with it, each as quoted', async () => {
      const [anual, premium] = ext.plans.map((plan) => plan.id) as [number, number]
      // 899900 × 1100 bp = 98989; × 1500 bp = 134985
      const byDefault = await contract(ext)
      expect(byDefault).toMatchObject({ plan: { id: anual }, premium: 989.89, lmi: 8999, is_used: false })
      const named = await contract(ext, { plan_id: premium })
      const quote = await ok<Json>('GET', `/annual-plans/quote?model_id=${pro}&plan_id=${premium}`, ext.token)
      expect(named).toMatchObject({ plan: { id: premium, name: 'Anual Premium' }, premium: 1349.85 })
      expect(named.premium).toBe(quote.premium)
    })

    it('reads `used` as an alias of `is_used`; both sent must agree, as in the quote', async () => {
      // 899900 × 1100 × 11500 / 10^8 = 113837.35 → 113837
      expect(await contract(ext, { used: true })).toMatchObject({ is_used: true, premium: 1138.37 })
      expect(await contract(ext, { used: true, is_used: true })).toMatchObject({ premium: 1138.37 })
      const conflict = await refused(
        'POST',
        '/annual-plans',
        ext.token,
        body(ext, { used: true, is_used: false }),
      )
      expect(conflict.errors).toEqual({ is_used: ['The is used field and its alias used must agree.'] })
    })

    it.each([
      ['a failing Luhn digit', { imei: '490154203237519' }, 'imei'],
      ['14 digits', { imei: '49015420323751' }, 'imei'],
      ['letters', { imei: '49015420323751A' }, 'imei'],
      ['no imei', { imei: undefined }, 'imei'],
      ['a bad second imei', { imei_2: '490154203237519' }, 'imei_2'],
    ])('refuses %s with 422', async (_label, extra, key) => {
      const { errors } = await refused('POST', '/annual-plans', ext.token, body(ext, extra))
      expect(Object.keys(errors ?? {})).toEqual([key])
    })

    it('refuses a second imei equal to the first, however formatted', async () => {
      const { errors } = await refused(
        'POST',
        '/annual-plans',
        ext.token,
        body(ext, { imei: IMEI, imei_2: '4901 5420 3237 518' }),
      )
      expect(errors).toEqual({ imei_2: ['The imei 2 and imei must be different.'] })
    })

    it('refuses an external partner’s plan without payment, or a card payment without installments', async () => {
      const none = await refused('POST', '/annual-plans', ext.token, body(ext, { payment: undefined }))
      expect(Object.keys(none.errors ?? {})).toEqual(['payment'])
      const card = await refused(
        'POST',
        '/annual-plans',
        ext.token,
        body(ext, { payment: { method: 'credit_card' } }),
      )
      expect(Object.keys(card.errors ?? {})).toEqual(['payment.installments'])
      for (const payment of [
        { method: 'credit_card', installments: 13 },
        { method: 'credit_card', installments: 0 },
      ]) {
        const { errors } = await refused('POST', '/annual-plans', ext.token, body(ext, { payment }))
        expect(Object.keys(errors ?? {})).toEqual(['payment.installments'])
      }
      const cash = await refused(
        'POST',
        '/annual-plans',
        ext.token,
        body(ext, { payment: { method: 'cash' } }),
      )
      expect(Object.keys(cash.errors ?? {})).toEqual(['payment.method'])
    })

    it('keeps slip and pix as one payment', async () => {
      const slip = await contract(ext, { payment: { method: 'slip', installments: 5 } })
      expect(slip.payment).toEqual({ method: 'slip', installments: 1 })
    })

    it('ignores payment for own-gateway partners', async () => {
      expect((await contract(own, { payment: undefined })).payment).toBeNull()
      expect((await contract(own, { payment: { method: 'slip' } })).payment).toBeNull()
      // Ignored, so not validated: a malformed one does not refuse the contract.
      for (const payment of [
        { method: 'boleto' },
        {},
        null,
        'pix',
        { method: 'credit_card', installments: 20 },
      ]) {
        expect((await contract(own, { payment })).payment, JSON.stringify(payment)).toBeNull()
      }
    })

    it('reports every invalid reference at once and writes nothing', async () => {
      const before = await ctx.db
        .selectFrom('annual_plans')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      const { errors } = await refused(
        'POST',
        '/annual-plans',
        ext.token,
        body(ext, {
          model_id: 999_999,
          plan_id: other.annualPlanId,
          customer_id: other.customerId,
          store_id: other.matrix,
          imei: IMEI,
          imei_2: IMEI,
        }),
      )
      expect(Object.keys(errors ?? {}).sort()).toEqual([
        'customer_id',
        'imei_2',
        'model_id',
        'plan_id',
        'store_id',
      ])
      const after = await ctx.db
        .selectFrom('annual_plans')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      expect(Number(after.n)).toBe(Number(before.n))
    })

    it('takes optional fields sent as null as not sent, as the subscription does', async () => {
      const nulls = { store_id: null, maxima: null, is_used: null, used: null, customer_document: null }
      expect(await contract(ext, nulls)).toMatchObject({
        premium: 989.89,
        lmi: 8999,
        is_used: false,
        store_id: null,
      })
      const { errors } = await refused(
        'POST',
        '/annual-plans',
        ext.token,
        body(ext, { customer_id: null, customer_document: null }),
      )
      expect(Object.keys(errors ?? {})).toEqual(['customer_id'])
    })

    it('refuses a customer_document that is not the customer_id’s customer', async () => {
      expect(await contract(ext, { customer_document: MARIA })).toMatchObject({
        customer: { id: ext.customerId },
      })
      const { errors } = await refused(
        'POST',
        '/annual-plans',
        ext.token,
        body(ext, { customer_document: '111.444.777-35' }),
      )
      expect(errors).toEqual({
        customer_document: ['The customer document does not match the selected customer id.'],
      })
    })

    it('requires a customer', async () => {
      const { errors } = await refused(
        'POST',
        '/annual-plans',
        ext.token,
        body(ext, { customer_id: undefined }),
      )
      expect(Object.keys(errors ?? {})).toEqual(['customer_id'])
    })

    it('never lets fields that are not inputs take effect', async () => {
      const created = await contract(ext, {
        id: 424242,
        status: 'protected',
        premium: 1,
        lmi: 1,
        policy_number: 'AMP-2026-999999',
        paid_at: '2026-01-01 00:00:00',
        partner_id: other.partner.id,
        locked_until: '2099-01-01T00:00:00.000Z',
      })
      expect(created).toMatchObject({
        status: 'awaiting_payment',
        premium: 989.89,
        lmi: 8999,
        policy_number: null,
        paid_at: null,
      })
      expect(created.id).not.toBe(424242)
      const row = await ctx.db
        .selectFrom('annual_plans')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow()
      expect(row).toMatchObject({ partner_id: ext.partner.id, locked_until: null })
    })

    it('answers 401 without a token', async () => {
      const response = await call('POST', '/annual-plans', null, body(ext))
      expect(response.statusCode).toBe(401)
    })
  })

  describe('reading', () => {
    it('lists only the partner’s plans, newest first, paged', async () => {
      const mine = await contract(other)
      const second = await contract(other)
      const page = await ok<PageBody<AnnualPlan>>('GET', '/annual-plans?per_page=1', other.token)
      expect(page.data.map((p) => p.id)).toEqual([second.id])
      expect(page.meta).toMatchObject({
        total: 2,
        per_page: 1,
        current_page: 1,
        path: `${base}/annual-plans`,
      })
      expect(page.links.next).toBe(`${base}/annual-plans?per_page=1&page=2`)
      const all = await ok<PageBody<AnnualPlan>>('GET', '/annual-plans', other.token)
      expect(all.data).toEqual([second, mine])
    })

    it('answers 404 for another partner’s plan, an unknown id and a malformed one', async () => {
      const theirs = await contract(other)
      for (const url of [`/annual-plans/${theirs.id}`, '/annual-plans/999999', '/annual-plans/abc']) {
        const response = await call('GET', url, ext.token)
        expect(response.statusCode, url).toBe(404)
        expect(response.json()).toEqual(expectedError(response, 'not_found', { message: expect.any(String) }))
      }
      for (const url of [`/annual-plans/${theirs.id}/payment`, `/annual-plans/${theirs.id}/notify-payment`]) {
        const response = await call('POST', url, ext.token, url.endsWith('/payment') ? VISA : undefined)
        expect(response.statusCode, url).toBe(404)
      }
      // The plan is looked up before the gateway mode, whatever the body (the next describe's 422).
      for (const url of [
        `/annual-plans/${theirs.id}/payment`,
        '/annual-plans/999999/payment',
        '/annual-plans/abc/payment',
      ]) {
        for (const payload of [{ card_number: VISA.card_number }, undefined]) {
          const response = await call('POST', url, ext.token, payload)
          expect(response.statusCode, url).toBe(404)
          expect(response.json()).toEqual(
            expectedError(response, 'not_found', { message: expect.any(String) }),
          )
        }
      }
      expect((await call('GET', '/annual-plans', null)).statusCode).toBe(401)
      expect((await call('GET', `/annual-plans/${theirs.id}`, null)).statusCode).toBe(401)
    })

    it('refuses a bad page or filter with 422', async () => {
      for (const query of ['per_page=0', 'page=0', 'filter[status]=pago', 'filter[customer_document]=123']) {
        const response = await call('GET', `/annual-plans?${query}`, ext.token)
        expect(response.statusCode, query).toBe(422)
      }
    })
  })

  describe('POST /annual-plans/{id}/payment (own gateway)', () => {
    it('pays with an approved card: paid, policy number, cover window, card kept, one ledger row', async () => {
      const plan = await contract(own)
      const paid = await ok<AnnualPlan>('POST', `/annual-plans/${plan.id}/payment`, own.token, {
        ...VISA,
        installments: 3,
      })
      expect(paid).toEqual({
        ...plan,
        status: 'paid',
        policy_number: `AMP-2026-${String(plan.id).padStart(6, '0')}`,
        certificate: {
          url: expect.stringMatching(new RegExp(`/annual-plans/${plan.id}/certificate$`)),
          verification_code: expect.stringMatching(/^[A-Z2-7]{32}$/),
          verification_url: expect.stringMatching(/\/certificates\/[A-Z2-7]{32}$/),
        },
        payment: { method: 'credit_card', installments: 3, card: { brand: 'visa', last4: '1111' } },
        paid_at: '2026-11-21 12:04:05',
        paid_with: 'card',
        starts_at: '2026-11-22 00:00:00',
        ends_at: '2027-11-22 00:00:00',
      })
      expect(await ok('GET', `/annual-plans/${plan.id}`, own.token)).toEqual(paid)
      expect(await ledger(plan.id)).toEqual([
        {
          partner_id: own.partner.id,
          subscription_id: null,
          installment_id: null,
          amount: 98_989,
          route: 'card',
          outcome: 'approved',
          decline_code: null,
          transaction_id: expect.stringMatching(/^txn_test_/),
        },
      ])
      const row = await ctx.db
        .selectFrom('annual_plans')
        .selectAll()
        .where('id', '=', plan.id)
        .executeTakeFirstOrThrow()
      expect(JSON.stringify(row)).not.toContain('4111111111111111')
      expect(row.locked_until).toBeNull()
    })

    it('defaults to one installment and accepts MMYY', async () => {
      const plan = await contract(own)
      const paid = await ok<AnnualPlan>('POST', `/annual-plans/${plan.id}/payment`, own.token, {
        ...VISA,
        card_number: '5555 5555 5555 4444',
        card_expiry: '1130',
      })
      expect(paid.payment).toEqual({
        method: 'credit_card',
        installments: 1,
        card: { brand: 'mastercard', last4: '4444' },
      })
    })

    it('refuses a second payment with 422 errors.status, without charging again', async () => {
      const plan = await contract(own)
      expect((await pay(own, plan.id)).statusCode).toBe(200)
      const before = charges
      const { errors } = await refused('POST', `/annual-plans/${plan.id}/payment`, own.token, VISA)
      expect(Object.keys(errors ?? {})).toEqual(['status'])
      expect(charges).toBe(before)
      expect(await ledger(plan.id)).toHaveLength(1)
    })

    it.each([
      ['4000000000000002', 'card_declined'],
      ['4000000000009995', 'insufficient_funds'],
      ['4000000000000069', 'expired_card'],
    ])('answers 402 for sandbox card %s (%s); the plan stays awaiting payment', async (number, code) => {
      const plan = await contract(own)
      const response = await pay(own, plan.id, { ...VISA, card_number: number })
      expect(response.statusCode, response.body).toBe(402)
      const declined = response.json() as ErrorBody
      expect(declined).toEqual(
        expectedError(response, 'card_declined', {
          message: expect.any(String),
          errors: { creditCard: [declined.message] },
          decline_code: code,
        }),
      )
      expect(await ok('GET', `/annual-plans/${plan.id}`, own.token)).toEqual(plan)
      expect(await ledger(plan.id)).toEqual([
        expect.objectContaining({ route: 'card', outcome: 'declined', decline_code: code, amount: 98_989 }),
      ])
      // Another card may pay it afterwards.
      expect((await ok<AnnualPlan>('POST', `/annual-plans/${plan.id}/payment`, own.token, VISA)).status).toBe(
        'paid',
      )
      expect((await ledger(plan.id)).map((r) => r.outcome)).toEqual(['declined', 'approved'])
    })

    it.each([
      [
        'a failing Luhn check',
        { card_number: '4111111111111112' },
        'card_number',
        'The card number is invalid.',
      ],
      // The shape this route documents, not the subscription's MMYY (both are accepted).
      [
        'month 13',
        { card_expiry: '13/30' },
        'card_expiry',
        'The card expiry must be a month and year, MM/YY.',
      ],
      [
        'a one-digit month',
        { card_expiry: '1/30' },
        'card_expiry',
        'The card expiry must be a month and year, MM/YY.',
      ],
      ['an expired card', { card_expiry: '10/26' }, 'card_expiry', 'The card has expired.'],
      ['a 2-digit code', { card_cvv: '12' }, 'card_cvv', 'The card security code must be 3 or 4 digits.'],
    ])('refuses %s with 422 and charges nothing', async (_label, change, key, message) => {
      const plan = await contract(own)
      const before = charges
      const { errors } = await refused('POST', `/annual-plans/${plan.id}/payment`, own.token, {
        ...VISA,
        ...change,
      })
      expect(errors).toEqual({ [key]: [message] })
      expect(charges).toBe(before)
      expect(await ledger(plan.id)).toEqual([])
    })

    it('refuses installments outside 1..12 and a missing card number', async () => {
      const plan = await contract(own)
      for (const [change, key] of [
        [{ installments: 13 }, 'installments'],
        [{ installments: 0 }, 'installments'],
        [{ card_number: undefined }, 'card_number'],
      ] as const) {
        const { errors } = await refused('POST', `/annual-plans/${plan.id}/payment`, own.token, {
          ...VISA,
          ...change,
        })
        expect(Object.keys(errors ?? {})).toEqual([key])
      }
    })

    it('refuses external partners and a deployment without card payments with 422 errors.gateway', async () => {
      const plan = await contract(ext)
      const { errors } = await refused('POST', `/annual-plans/${plan.id}/payment`, ext.token, VISA)
      expect(Object.keys(errors ?? {})).toEqual(['gateway'])
      const ownPlan = await contract(own)
      const response = await call(
        'POST',
        `/annual-plans/${ownPlan.id}/payment`,
        own.token,
        VISA,
        noGatewayApp,
      )
      expect(response.statusCode).toBe(422)
      expect(Object.keys(response.json().errors)).toEqual(['gateway'])
      expect(await ledger(ownPlan.id)).toEqual([])
    })

    it('answers errors.gateway alone to the wrong mode, whatever the body', async () => {
      const plan = await contract(ext)
      const ownPlan = await contract(own)
      const bodies = [
        { card_number: VISA.card_number },
        { ...VISA, card_expiry: '13/30', installments: 13 },
        {},
        [],
        undefined,
      ]
      for (const payload of bodies) {
        for (const [s, id, on] of [
          [ext, plan.id, ctx.app],
          [own, ownPlan.id, noGatewayApp],
        ] as const) {
          const response = await call('POST', `/annual-plans/${id}/payment`, s.token, payload, on)
          expect(response.statusCode, response.body).toBe(422)
          const { message, errors } = response.json() as ErrorBody
          expect(Object.keys(errors ?? {})).toEqual(['gateway'])
          expect(message).toBe(
            s === ext
              ? 'This partner uses the external gateway: notify payments through the notify-payment call.'
              : 'Card payments are not available in this environment.',
          )
        }
      }
      expect(await ledger(plan.id)).toEqual([])
      expect(await ledger(ownPlan.id)).toEqual([])
    })

    it('charges once when two payments race: the other answers 409 (or 422 once the first is done)', async () => {
      const plan = await contract(own)
      const before = charges
      const responses = await Promise.all([pay(own, plan.id), pay(own, plan.id)])
      const statuses = responses.map((r) => r.statusCode).sort()
      expect(statuses[0]).toBe(200)
      expect([409, 422]).toContain(statuses[1])
      expect(charges - before).toBe(1)
      expect(await ledger(plan.id)).toHaveLength(1)
    })

    it('answers 409 while another charge holds the plan, and takes over a hold that expired', async () => {
      const plan = await contract(own)
      const hold = (until: string) =>
        retryingTransaction(ctx.db, (trx) =>
          trx.updateTable('annual_plans').set({ locked_until: until }).where('id', '=', plan.id).execute(),
        )
      await hold('2026-11-21T15:05:00.000Z')
      const before = charges
      expect((await pay(own, plan.id)).statusCode).toBe(409)
      expect(charges).toBe(before)
      await hold('2026-11-21T15:04:04.000Z')
      expect((await pay(own, plan.id)).statusCode).toBe(200)
    })

    it('gives 20 plans paid at once 20 distinct policy numbers', async () => {
      const plans = await Promise.all(Array.from({ length: 20 }, () => contract(own)))
      const paid = await Promise.all(
        plans.map((p) => ok<AnnualPlan>('POST', `/annual-plans/${p.id}/payment`, own.token, VISA)),
      )
      const numbers = paid.map((p) => p.policy_number)
      expect(new Set(numbers).size).toBe(20)
      for (const p of paid) expect(p.policy_number).toBe(`AMP-2026-${String(p.id).padStart(6, '0')}`)
    })
  })

  describe('POST /annual-plans/{id}/notify-payment (external gateway)', () => {
    it('pays the plan once: the same policy number on every repeat, one ledger row', async () => {
      const plan = await contract(ext)
      const first = await ok<Json>('POST', `/annual-plans/${plan.id}/notify-payment`, ext.token)
      expect(first).toEqual({
        id: plan.id,
        status: 'paid',
        policy_number: `AMP-2026-${String(plan.id).padStart(6, '0')}`,
        paid_at: '2026-11-21 12:04:05',
        starts_at: '2026-11-22 00:00:00',
        ends_at: '2027-11-22 00:00:00',
      })
      now = new Date('2026-11-21T16:00:00.000Z')
      try {
        expect(await ok('POST', `/annual-plans/${plan.id}/notify-payment`, ext.token)).toEqual(first)
      } finally {
        now = NOW
      }
      expect(await ledger(plan.id)).toEqual([
        expect.objectContaining({
          route: 'notification',
          outcome: 'recorded',
          amount: 98_989,
          transaction_id: null,
        }),
      ])
      expect(await ok<AnnualPlan>('GET', `/annual-plans/${plan.id}`, ext.token)).toMatchObject({
        status: 'paid',
        policy_number: first.policy_number,
        payment: { method: 'pix', installments: 1 },
        paid_with: 'external',
      })
    })

    it('records concurrent notifications once', async () => {
      const plan = await contract(ext)
      const responses = await Promise.all(Array.from({ length: 5 }, () => notify(ext, plan.id)))
      expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200])
      expect(new Set(responses.map((r) => r.json().policy_number)).size).toBe(1)
      expect(await ledger(plan.id)).toHaveLength(1)
    })

    it('writes nothing for a notification that read the plan before another one paid it', async () => {
      const plan = await contract(ext)
      // Two requests that both read the plan while it awaited payment, as racing ones do.
      const stale = await findAnnualPlanRow(ctx.db, ext.partner.id, plan.id)
      if (!stale) throw new Error('no plan')
      const moment = { now: NOW.toISOString(), ...renderingContext(ctx.config) }
      for (const _ of [1, 2]) {
        await retryingTransaction(ctx.db, (trx) => recordNotifiedPayment(trx, stale, moment))
      }
      expect(await ledger(plan.id)).toHaveLength(1)
    })

    it('gives 20 plans notified at once 20 distinct policy numbers', async () => {
      const plans = await Promise.all(Array.from({ length: 20 }, () => contract(ext)))
      const paid = await Promise.all(
        plans.map((p) => ok<Json>('POST', `/annual-plans/${p.id}/notify-payment`, ext.token)),
      )
      expect(new Set(paid.map((p) => p.policy_number)).size).toBe(20)
    })

    it('refuses own-gateway partners with 422 errors.gateway', async () => {
      const plan = await contract(own)
      const { errors } = await refused('POST', `/annual-plans/${plan.id}/notify-payment`, own.token)
      expect(Object.keys(errors ?? {})).toEqual(['gateway'])
      expect(await ledger(plan.id)).toEqual([])
    })

    it('refuses a canceled plan with 422 errors.status', async () => {
      const plan = await contract(ext)
      const request = await call('PUT', `/annual-plans/${plan.id}/cancellation`, ext.token, {})
      expect(request.statusCode).toBe(200)
      await ok('POST', `/annual-plans/${plan.id}/cancellation/${request.json().protocol}`, ext.token)
      const { errors } = await refused('POST', `/annual-plans/${plan.id}/notify-payment`, ext.token)
      expect(Object.keys(errors ?? {})).toEqual(['status'])
      expect(await ledger(plan.id)).toEqual([])
    })
  })

  describe('the clock', () => {
    const statusAt = (s: Seller, id: number, iso: string) =>
      at(iso, s, async (token) => {
        const plan = await ok<AnnualPlan>('GET', `/annual-plans/${id}`, token)
        // The list filter agrees with the resource at every instant: listed under its status only.
        const listedUnder = []
        for (const status of ['awaiting_payment', 'paid', 'protected', 'expired', 'canceled']) {
          const page = await ok<PageBody<AnnualPlan>>(
            'GET',
            `/annual-plans?filter[status]=${status}&per_page=100`,
            token,
          )
          if (page.data.some((p) => p.id === id)) listedUnder.push(status)
        }
        expect(listedUnder).toEqual([plan.status])
        return plan.status
      })

    it('paid at 23:59:59: paid until 00:00:00 of the next day, protected from it, expired at the end', async () => {
      const plan = await contract(ext)
      // 2026-11-21 23:59:59 in São Paulo
      const notice = await at('2026-11-22T02:59:59.000Z', ext, (token) =>
        ok<Json>('POST', `/annual-plans/${plan.id}/notify-payment`, token),
      )
      expect(notice).toMatchObject({
        status: 'paid',
        paid_at: '2026-11-21 23:59:59',
        starts_at: '2026-11-22 00:00:00',
        ends_at: '2027-11-22 00:00:00',
      })
      expect(await statusAt(ext, plan.id, '2026-11-22T02:59:59.000Z')).toBe('paid')
      expect(await statusAt(ext, plan.id, '2026-11-22T02:59:59.999Z')).toBe('paid')
      expect(await statusAt(ext, plan.id, '2026-11-22T03:00:00.000Z')).toBe('protected')
      expect(await statusAt(ext, plan.id, '2027-11-22T02:59:59.000Z')).toBe('protected')
      expect(await statusAt(ext, plan.id, '2027-11-22T03:00:00.000Z')).toBe('expired')
      // A repeated notification shows the clock's status too, with the same policy number.
      const repeat = await at('2027-01-01T12:00:00.000Z', ext, (token) =>
        ok<Json>('POST', `/annual-plans/${plan.id}/notify-payment`, token),
      )
      expect(repeat).toEqual({ ...notice, status: 'protected' })
    })

    it('paid at 00:00:00: cover starts the day after', async () => {
      const plan = await contract(ext)
      const notice = await at('2026-11-22T03:00:00.000Z', ext, (token) =>
        ok<Json>('POST', `/annual-plans/${plan.id}/notify-payment`, token),
      )
      expect(notice).toMatchObject({ paid_at: '2026-11-22 00:00:00', starts_at: '2026-11-23 00:00:00' })
      expect(await statusAt(ext, plan.id, '2026-11-23T02:59:59.000Z')).toBe('paid')
      expect(await statusAt(ext, plan.id, '2026-11-23T03:00:00.000Z')).toBe('protected')
    })

    it('a cover starting on 29 February 2028 ends on 28 February 2029', async () => {
      const plan = await contract(own)
      const paid = await at('2028-02-28T15:00:00.000Z', own, (token) =>
        ok<AnnualPlan>('POST', `/annual-plans/${plan.id}/payment`, token, VISA),
      )
      expect(paid).toMatchObject({
        status: 'paid',
        policy_number: `AMP-2028-${String(plan.id).padStart(6, '0')}`,
        starts_at: '2028-02-29 00:00:00',
        ends_at: '2029-02-28 00:00:00',
      })
      expect(await statusAt(own, plan.id, '2028-02-29T03:00:00.000Z')).toBe('protected')
      expect(await statusAt(own, plan.id, '2029-02-28T02:59:59.000Z')).toBe('protected')
      expect(await statusAt(own, plan.id, '2029-02-28T03:00:00.000Z')).toBe('expired')
    })

    it('numbers the policy with the year of payment in São Paulo', async () => {
      const plan = await contract(ext)
      // 2026-12-31 23:30 in São Paulo is already 2027 in UTC.
      const notice = await at('2027-01-01T02:30:00.000Z', ext, (token) =>
        ok<Json>('POST', `/annual-plans/${plan.id}/notify-payment`, token),
      )
      expect(notice.policy_number).toBe(`AMP-2026-${String(plan.id).padStart(6, '0')}`)
    })

    it('an unpaid plan stays awaiting payment whatever the clock', async () => {
      const plan = await contract(ext)
      expect(await statusAt(ext, plan.id, '2030-01-01T00:00:00.000Z')).toBe('awaiting_payment')
    })
  })

  describe('a database failure while answering a contract', () => {
    // Fails the first read of annual_plans that follows an insert into it, as a connection lost
    // between writing the plan and reading it back would.
    let armed = false
    let inserted = false
    const lostAfterInsert: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (!armed || !JSON.stringify(node).includes('"annual_plans"')) return node
        if (node.kind === 'InsertQueryNode') inserted = true
        else if (inserted && node.kind === 'SelectQueryNode') {
          armed = false
          throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' })
        }
        return node
      },
      transformResult: async ({ result }) => result,
    }
    let flaky: App

    beforeAll(async () => {
      const db = withPlugin(ctx.db, lostAfterInsert)
      flaky = await buildCheckedApp({
        config: ctx.config,
        db,
        clock: { now: () => now },
        gateway,
        logger: false,
      })
    })
    afterAll(() => flaky?.close())

    it('answers 503 with nothing written, and the retry with the same Idempotency-Key contracts once', async () => {
      const plans = () =>
        ctx.db.selectFrom('annual_plans').select('id').where('partner_id', '=', ext.partner.id).execute()
      const before = (await plans()).length
      const payload = body(ext)
      const post = () =>
        flaky.inject({
          method: 'POST',
          url: '/annual-plans',
          headers: { ...bearer(ext.token), 'idempotency-key': 'lost-after-insert' },
          payload,
        })
      armed = true
      const failed = await post()
      expect(armed, 'the read back failed').toBe(false)
      expect(failed.statusCode, failed.body).toBe(503)
      expect(await plans()).toHaveLength(before)

      const retried = await post()
      expect(retried.statusCode, retried.body).toBe(201)
      expect(await plans()).toHaveLength(before + 1)
      const replayed = await post()
      expect(replayed.headers['idempotent-replayed']).toBe('true')
      expect(replayed.json()).toEqual(retried.json())
      expect(await plans()).toHaveLength(before + 1)
    })
  })
})
