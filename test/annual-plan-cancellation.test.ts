import { beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import type { AnnualPlan, AnnualPlanCancellation } from './helpers/api-types.js'
import { uniqueImei, annualCard as VISA } from './helpers/bodies.js'
import { expectedError } from './helpers/errors.js'
import { useTestApp } from './helpers/test-app.js'
import { ANNUAL, bearer, login, type Seller, seedCatalog, seller } from './helpers/world.js'

// The premium is 98989 cents (iPhone 16 Pro, LMI 899900 × 1100 bp). Times are UTC; São Paulo is
// UTC−3 all year, so 15:00Z is 12:00 there and 03:00Z is local midnight.

type Json = Record<string, unknown>
const NOW = new Date('2026-03-01T15:00:00.000Z')
/** 2026-03-10 12:00 in São Paulo: cover 2026-03-11 → 2027-03-11, 365 days. */
const PAID = '2026-03-10T15:00:00.000Z'
const PROTOCOL = /^CAN-[A-Z2-7]{10}$/

let now = NOW
let pro: number

function call(method: 'GET' | 'POST' | 'PUT', url: string, token: string | null, payload?: unknown) {
  return ctx.app.inject({
    method,
    url,
    headers: token ? bearer(token) : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  })
}

/** Calls at the instant `iso`, with a token issued then; the clock goes back to NOW afterwards. */
async function at(iso: string, s: Seller, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) {
  now = new Date(iso)
  try {
    return await call(method, url, await login(ctx.app, s.partner), payload)
  } finally {
    now = NOW
  }
}

async function okAt<T = Json>(
  iso: string,
  s: Seller,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  payload?: unknown,
) {
  const response = await at(iso, s, method, url, payload)
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(200)
  return response.json() as T
}

const sellerOf = (gateway: 'external' | 'own') =>
  seller(ctx, { partner: gateway, plans: [ANNUAL], plansAt: NOW.toISOString() })

async function contract(s: Seller): Promise<number> {
  const response = await call('POST', '/annual-plans', s.token, {
    model_id: pro,
    customer_id: s.customerId,
    imei: uniqueImei(),
    payment: { method: 'pix' },
  })
  expect(response.statusCode, response.body).toBe(201)
  return response.json().id
}

/** An external partner's plan whose payment was notified at `paidAt`. */
async function paidPlan(s: Seller, paidAt = PAID): Promise<number> {
  const id = await contract(s)
  await okAt(paidAt, s, 'POST', `/annual-plans/${id}/notify-payment`)
  return id
}

const request = (s: Seller, id: number, iso: string, payload: unknown = {}) =>
  okAt<AnnualPlanCancellation>(iso, s, 'PUT', `/annual-plans/${id}/cancellation`, payload)
const confirm = (s: Seller, id: number, protocol: string, iso: string) =>
  okAt<AnnualPlan>(iso, s, 'POST', `/annual-plans/${id}/cancellation/${protocol}`)

/** Requests at `requestedAt` and confirms at `confirmedAt`; the confirmed plan. */
async function cancel(s: Seller, id: number, requestedAt: string, confirmedAt: string) {
  const { protocol } = await request(s, id, requestedAt)
  return confirm(s, id, protocol, confirmedAt)
}

// Every clock jump logs in again, far more often than the login limit allows a client.
const ctx = useTestApp({ clock: { now: () => now }, env: { AMPARO_LOGIN_RATE_LIMIT: '100000' } })
beforeAll(async () => {
  pro = (await seedCatalog(ctx.db)).model('iPhone 16 Pro').id
})

describe('annual plan cancellation', () => {
  let ext: Seller
  let own: Seller
  let other: Seller

  beforeAll(async () => {
    ext = await sellerOf('external')
    own = await sellerOf('own')
    other = await sellerOf('external')
  })

  describe('PUT /annual-plans/{id}/cancellation', () => {
    it('opens a request with a protocol; the plan keeps its status and shows the request', async () => {
      const id = await paidPlan(ext)
      // 2026-03-12 10:00 in São Paulo: day 2 after payment.
      const opened = await request(ext, id, '2026-03-12T13:00:00.000Z', { reason: '  Desistiu.  ' })
      expect(opened).toEqual({
        protocol: expect.stringMatching(PROTOCOL),
        status: 'requested',
        reason: 'Desistiu.',
        refund_amount: 989.89,
        requested_at: '2026-03-12 10:00:00',
      })
      const plan = await okAt<AnnualPlan>('2026-03-12T13:00:00.000Z', ext, 'GET', `/annual-plans/${id}`)
      expect(plan.status).toBe('protected')
      expect(plan.cancellation).toEqual({
        protocol: opened.protocol,
        status: 'requested',
        reason: 'Desistiu.',
        requested_at: '2026-03-12 10:00:00',
        confirmed_at: null,
        refund_amount: 989.89,
        refund_due_date: null,
        refund_status: null,
        refunded_at: null,
      })
    })

    it('answers the same open request when repeated, keeping the first reason and time', async () => {
      const id = await paidPlan(ext)
      const first = await request(ext, id, '2026-03-12T13:00:00.000Z', { reason: 'Primeiro' })
      // Day 8: the estimate moves with the clock (98989 × 358 / 365 = 97090.6 → 97091).
      const again = await request(ext, id, '2026-03-18T03:00:00.000Z', { reason: 'Segundo' })
      expect(again).toEqual({ ...first, refund_amount: 970.91 })
      const rows = await ctx.db
        .selectFrom('annual_plan_cancellations')
        .selectAll()
        .where('annual_plan_id', '=', id)
        .execute()
      expect(rows).toHaveLength(1)
    })

    it('answers the open request when repeated after the cover ended: it can still be confirmed', async () => {
      const id = await paidPlan(ext)
      const first = await request(ext, id, '2027-03-10T15:00:00.000Z', {})
      const again = await request(ext, id, '2027-03-11T04:00:00.000Z', {})
      expect(again).toEqual({ ...first, refund_amount: 0 })
    })

    it('opens one request when several race', async () => {
      const id = await paidPlan(ext)
      const { token } = ext
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => call('PUT', `/annual-plans/${id}/cancellation`, token, {})),
      )
      expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200])
      expect(new Set(responses.map((r) => r.json().protocol)).size).toBe(1)
    })

    it('accepts a PUT without a body, and refuses a reason over 255 characters', async () => {
      const id = await contract(ext)
      const response = await at(NOW.toISOString(), ext, 'PUT', `/annual-plans/${id}/cancellation`)
      expect(response.statusCode, response.body).toBe(200)
      expect(response.json()).toMatchObject({ reason: null, refund_amount: 0 })
      const other = await contract(ext)
      const long = await at(NOW.toISOString(), ext, 'PUT', `/annual-plans/${other}/cancellation`, {
        reason: 'x'.repeat(256),
      })
      expect(long.statusCode).toBe(422)
      expect(Object.keys(long.json().errors)).toEqual(['reason'])
    })

    it('refuses an expired plan and a canceled one with 422 errors.status', async () => {
      const expired = await paidPlan(ext)
      const late = await at(
        '2027-03-11T03:00:00.000Z',
        ext,
        'PUT',
        `/annual-plans/${expired}/cancellation`,
        {},
      )
      expect(late.statusCode).toBe(422)
      expect(Object.keys(late.json().errors)).toEqual(['status'])

      const canceled = await paidPlan(ext)
      await cancel(ext, canceled, '2026-03-12T13:00:00.000Z', '2026-03-12T13:00:00.000Z')
      const again = await at(
        '2026-03-13T13:00:00.000Z',
        ext,
        'PUT',
        `/annual-plans/${canceled}/cancellation`,
        {},
      )
      expect(again.statusCode).toBe(422)
      expect(Object.keys(again.json().errors)).toEqual(['status'])
    })
  })

  describe('POST /annual-plans/{id}/cancellation/{protocol}', () => {
    it('cancels the plan and fixes the refund and its due date; a repeat answers the same', async () => {
      const id = await paidPlan(ext)
      const { protocol } = await request(ext, id, '2026-03-12T13:00:00.000Z', { reason: 'Desistiu.' })
      // 2026-03-17 23:59:59 in São Paulo: day 7, still the right of regret.
      const canceled = await confirm(ext, id, protocol, '2026-03-18T02:59:59.000Z')
      expect(canceled).toMatchObject({ id, status: 'canceled', premium: 989.89 })
      expect(canceled.policy_number).toMatch(/^AMP-2026-\d{6}$/)
      expect(canceled.cancellation).toEqual({
        protocol,
        status: 'confirmed',
        reason: 'Desistiu.',
        requested_at: '2026-03-12 10:00:00',
        confirmed_at: '2026-03-17 23:59:59',
        refund_amount: 989.89,
        refund_due_date: '2026-04-01',
        // Paid to the partner (external gateway): the partner refunds its customer.
        refund_status: 'partner',
        refunded_at: null,
      })
      // Months later, the repeat and a read show the same confirmation.
      expect(await confirm(ext, id, protocol, '2026-09-01T15:00:00.000Z')).toEqual(canceled)
      expect(await okAt('2026-09-01T15:00:00.000Z', ext, 'GET', `/annual-plans/${id}`)).toEqual(canceled)
    })

    it.each([
      ['day 0 (the payment day)', '2026-03-10T23:00:00.000Z', 989.89, '2026-03-25'],
      ['day 8: 358 of 365 days left', '2026-03-18T03:00:00.000Z', 970.91, '2026-04-02'],
      ['mid-term: 181 of 365 days left', '2026-09-11T15:00:00.000Z', 490.88, '2026-09-26'],
      ['the last day of cover: 1 day left', '2027-03-10T15:00:00.000Z', 2.71, '2027-03-25'],
    ])('refunds %s: R$ %d, due %s', async (_label, confirmedAt, refund, due) => {
      const id = await paidPlan(ext)
      const plan = await cancel(ext, id, confirmedAt, confirmedAt)
      expect(plan.status).toBe('canceled')
      expect(plan.cancellation).toMatchObject({
        status: 'confirmed',
        refund_amount: refund,
        refund_due_date: due,
      })
    })

    it('computes the refund at confirmation, not at the request', async () => {
      const id = await paidPlan(ext)
      const { protocol, refund_amount } = await request(ext, id, '2026-03-12T13:00:00.000Z')
      expect(refund_amount).toBe(989.89)
      const plan = await confirm(ext, id, protocol, '2026-09-11T15:00:00.000Z')
      expect(plan.cancellation?.refund_amount).toBe(490.88)
    })

    it('divides by 366 in a term with 29 February, rounding half-up', async () => {
      // Paid 2027-03-10: cover 2027-03-11 → 2028-03-11 (366 days); 183 left on 2027-09-10.
      const id = await paidPlan(ext, '2027-03-10T15:00:00.000Z')
      const plan = await cancel(ext, id, '2027-09-10T15:00:00.000Z', '2027-09-10T15:00:00.000Z')
      // 98989 × 183 / 366 = 49494.5 → 49495
      expect(plan.cancellation?.refund_amount).toBe(494.95)
    })

    it('cancels an unpaid plan with refund 0; it can then be neither notified nor paid', async () => {
      const id = await contract(ext)
      const plan = await cancel(ext, id, NOW.toISOString(), NOW.toISOString())
      expect(plan).toMatchObject({ status: 'canceled', policy_number: null })
      expect(plan.cancellation).toMatchObject({ refund_amount: 0, refund_due_date: '2026-03-16' })
      const notified = await at(NOW.toISOString(), ext, 'POST', `/annual-plans/${id}/notify-payment`)
      expect(notified.statusCode).toBe(422)
      expect(Object.keys(notified.json().errors)).toEqual(['status'])

      const ownPlan = await contract(own)
      await cancel(own, ownPlan, NOW.toISOString(), NOW.toISOString())
      const paid = await at(NOW.toISOString(), own, 'POST', `/annual-plans/${ownPlan}/payment`, VISA)
      expect(paid.statusCode).toBe(422)
      expect(Object.keys(paid.json().errors)).toEqual(['status'])
      const ledger = await ctx.db
        .selectFrom('payments')
        .selectAll()
        .where('annual_plan_id', 'in', [id, ownPlan])
        .execute()
      expect(ledger).toEqual([])
    })

    it('confirms a request made during cover after the cover ended: canceled, refund 0', async () => {
      const id = await paidPlan(ext)
      const plan = await cancel(ext, id, '2027-03-10T15:00:00.000Z', '2027-03-11T03:00:00.000Z')
      expect(plan).toMatchObject({ status: 'canceled', cancellation: { refund_amount: 0 } })
    })

    it('accepts the protocol in lower case', async () => {
      const id = await paidPlan(ext)
      const { protocol } = await request(ext, id, PAID)
      expect((await confirm(ext, id, protocol.toLowerCase(), PAID)).status).toBe('canceled')
    })

    it('answers 404 for an unknown protocol or another plan’s, and leaves the plan alone', async () => {
      const id = await paidPlan(ext)
      const otherId = await paidPlan(ext)
      const { protocol: mine } = await request(ext, id, PAID)
      const { protocol: theirs } = await request(ext, otherId, PAID)
      for (const protocol of [theirs, 'CAN-AAAAAAAAAA', 'nope']) {
        const response = await at(PAID, ext, 'POST', `/annual-plans/${id}/cancellation/${protocol}`)
        expect(response.statusCode, protocol).toBe(404)
        expect(response.json()).toEqual(expectedError(response, 'not_found', { message: expect.any(String) }))
      }
      const plan = await okAt<AnnualPlan>(PAID, ext, 'GET', `/annual-plans/${id}`)
      expect(plan).toMatchObject({ status: 'paid', cancellation: { protocol: mine, status: 'requested' } })
    })

    it('answers 409 while a card charge holds the plan, and confirms once it is released', async () => {
      const id = await contract(own)
      const { protocol } = await request(own, id, NOW.toISOString())
      const hold = (until: string | null) =>
        retryingTransaction(ctx.db, (trx) =>
          trx.updateTable('annual_plans').set({ locked_until: until }).where('id', '=', id).execute(),
        )
      await hold('2026-03-01T15:01:00.000Z')
      const held = await at(NOW.toISOString(), own, 'POST', `/annual-plans/${id}/cancellation/${protocol}`)
      expect(held.statusCode).toBe(409)
      expect((await okAt<AnnualPlan>(NOW.toISOString(), own, 'GET', `/annual-plans/${id}`)).status).toBe(
        'awaiting_payment',
      )
      await hold(null)
      expect((await confirm(own, id, protocol, NOW.toISOString())).status).toBe('canceled')
    })

    it('keeps no 409 for an Idempotency-Key: its retry after the release confirms', async () => {
      const id = await contract(own)
      const { protocol } = await request(own, id, NOW.toISOString())
      const hold = (until: string | null) =>
        retryingTransaction(ctx.db, (trx) =>
          trx.updateTable('annual_plans').set({ locked_until: until }).where('id', '=', id).execute(),
        )
      const token = await login(ctx.app, own.partner)
      const confirmWithKey = () =>
        ctx.app.inject({
          method: 'POST',
          url: `/annual-plans/${id}/cancellation/${protocol}`,
          headers: { ...bearer(token), 'idempotency-key': `confirm-${id}` },
        })
      await hold('2026-03-01T15:01:00.000Z')
      expect((await confirmWithKey()).statusCode).toBe(409)
      await hold(null)
      const retried = await confirmWithKey()
      expect(retried.statusCode, retried.body).toBe(200)
      expect(retried.headers['idempotent-replayed']).toBeUndefined()
      expect(retried.json().status).toBe('canceled')
    })

    it('confirms once when confirmations race', async () => {
      const id = await paidPlan(ext)
      const { protocol } = await request(ext, id, PAID)
      now = new Date('2026-03-20T15:00:00.000Z')
      try {
        const token = await login(ctx.app, ext.partner)
        const url = `/annual-plans/${id}/cancellation/${protocol}`
        const responses = await Promise.all(Array.from({ length: 5 }, () => call('POST', url, token)))
        expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200])
        expect(new Set(responses.map((r) => r.body)).size).toBe(1)
      } finally {
        now = NOW
      }
    })
  })

  describe('a notification racing the confirmation of an unpaid plan', () => {
    it('answers 200 whenever it recorded the payment, even if the plan was canceled right after', async () => {
      now = new Date(PAID)
      try {
        const token = await login(ctx.app, ext.partner)
        for (let round = 0; round < 10; round++) {
          const created = await call('POST', '/annual-plans', token, {
            model_id: pro,
            customer_id: ext.customerId,
            imei: uniqueImei(),
            payment: { method: 'pix' },
          })
          const id = created.json().id as number
          const opened = await call('PUT', `/annual-plans/${id}/cancellation`, token, {})
          const { protocol } = opened.json() as AnnualPlanCancellation
          const [notified] = await Promise.all([
            call('POST', `/annual-plans/${id}/notify-payment`, token),
            call('POST', `/annual-plans/${id}/cancellation/${protocol}`, token),
          ])
          const ledger = await ctx.db
            .selectFrom('payments')
            .select('route')
            .where('annual_plan_id', '=', id)
            .execute()
          // Recorded by this call: it said so (200 with the policy number); otherwise it said 422.
          if (ledger.length > 0) {
            expect(notified.statusCode, notified.body).toBe(200)
            expect(notified.json()).toMatchObject({ id, status: 'paid', policy_number: expect.any(String) })
          } else {
            expect(notified.statusCode, notified.body).toBe(422)
          }
        }
      } finally {
        now = NOW
      }
    })
  })

  describe('access', () => {
    it('answers 404 for another partner’s plan and 401 without a token', async () => {
      const id = await paidPlan(ext)
      const { protocol } = await request(ext, id, PAID)
      for (const [method, url] of [
        ['PUT', `/annual-plans/${id}/cancellation`],
        ['POST', `/annual-plans/${id}/cancellation/${protocol}`],
      ] as const) {
        expect((await at(PAID, other, method, url, method === 'PUT' ? {} : undefined)).statusCode).toBe(404)
        expect((await call(method, url, null, method === 'PUT' ? {} : undefined)).statusCode).toBe(401)
      }
      const plan = await okAt<AnnualPlan>(PAID, ext, 'GET', `/annual-plans/${id}`)
      expect(plan.cancellation?.status).toBe('requested')
    })
  })
})
