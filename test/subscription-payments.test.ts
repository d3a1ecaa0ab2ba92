import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { InsertQueryNode, type KyselyPlugin, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { createDb, type Db, isPostgres } from '../src/db/database.js'
import type { GatewayMode } from '../src/modules/partners/partner.table.js'
import type { FirstCharge, PaymentGateway } from '../src/modules/payments/payment-gateway.js'
import { SandboxGateway } from '../src/modules/payments/sandbox-gateway.js'
import type { Clock } from '../src/shared/clock.js'
import { expectedError } from './helpers/errors.js'
import { bearer, createCustomer, partnerWithToken, seedCatalog } from './helpers/factories.js'
import { sandboxWith } from './helpers/gateways.js'
import { seedPlan, TOTAL_12X } from './helpers/plans.js'
import { buildCheckedApp, createTestApp, type TestContext } from './helpers/test-app.js'
import { createTestDatabase, interleaving, type TestDatabase } from './helpers/test-db.js'

// 15:00 UTC is 12:00 in São Paulo; the card expiry rule compares with November 2026.
const NOW = new Date('2026-11-21T15:00:00.000Z')
const PAID_AT = '2026-11-21 12:00:00'
const clock: Clock = { now: () => NOW }

// Galaxy S25: default LMI R$ 6499.00 × 1.20 % a month = R$ 77.988 → 7799 cents each installment.
const INSTALLMENT_CENTS = 7799
const INSTALLMENTS = 12

const CARDS = {
  visa: '4111111111111111',
  mastercard: '5555555555554444',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  expired: '4000000000000069',
}
// Four digits that no amount, id, date or token of this file contains as a whole word.
const CVV = '9876'
const card = (number: string, extra: Record<string, string> = {}) => ({
  creditCard: { number, expiry: '1230', cvv: CVV, ...extra },
})

interface Installment {
  id: number
  number: number
  amount: number
  due_date: string
  status: string
  status_label: string
  paid_at: string | null
}
interface Party {
  partnerId: number
  token: string
}
interface Contracted {
  id: number
  installments: Installment[]
}

let ctx: TestContext
/** Everything every app of this file logs, at trace level, through the production logger options. */
const logLines: string[] = []
const logStream = { write: (line: string) => void logLines.push(line) }
const extraApps: App[] = []

beforeAll(async () => {
  ctx = await createTestApp({ clock, env: { LOG_LEVEL: 'trace' }, logStream })
  await seedCatalog(ctx.db)
})
afterAll(async () => {
  for (const app of extraApps) await app.close()
  await ctx?.close()
})

/** Another app on the same database, e.g. with another card gateway. */
async function appWith(gateway: PaymentGateway | null): Promise<App> {
  const app = await buildCheckedApp({ config: ctx.config, db: ctx.db, clock, gateway, logStream })
  extraApps.push(app)
  return app
}

/** A partner with a 12-installment plan and a customer, logged in on `app`. */
async function partyOf(
  db: Db,
  app: App,
  gateway: GatewayMode,
): Promise<Party & { planId: number; modelId: number }> {
  const { partner, token } = await partnerWithToken(app, db, gateway)
  const plan = await seedPlan(db, partner.id, { ...TOTAL_12X, installments: INSTALLMENTS }, NOW.toISOString())
  await createCustomer(app, token)
  const model = await db
    .selectFrom('models')
    .select('id')
    .where('name', '=', 'Galaxy S25')
    .executeTakeFirstOrThrow()
  return { partnerId: partner.id, token, planId: plan.id, modelId: model.id }
}

const parties = new Map<GatewayMode, Promise<Awaited<ReturnType<typeof partyOf>>>>()
/** One shared partner per gateway mode for the main app; each test contracts its own subscriptions. */
function party(gateway: GatewayMode) {
  if (!parties.has(gateway)) parties.set(gateway, partyOf(ctx.db, ctx.app, gateway))
  return parties.get(gateway) as Promise<Awaited<ReturnType<typeof partyOf>>>
}

async function contract(p: Awaited<ReturnType<typeof partyOf>>, app: App = ctx.app): Promise<Contracted> {
  const created = await app.inject({
    method: 'POST',
    url: '/subscriptions',
    headers: bearer(p.token),
    payload: { plan_id: p.planId, customer_document: '52998224725', model_id: p.modelId },
  })
  expect(created.statusCode, created.body).toBe(201)
  const { id } = created.json()
  return { id, installments: await installmentsOf(p, id, app) }
}

async function installmentsOf(p: Party, id: number, app: App = ctx.app): Promise<Installment[]> {
  const response = await app.inject({
    method: 'GET',
    url: `/subscriptions/${id}/installments`,
    headers: bearer(p.token),
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}

async function statusOf(p: Party, id: number): Promise<string> {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/subscriptions/${id}`,
    headers: bearer(p.token),
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json().status
}

function notify(p: Party, subscriptionId: number, installmentId: number, app: App = ctx.app) {
  return app.inject({
    method: 'POST',
    url: `/subscriptions/${subscriptionId}/installments/${installmentId}/notify-payment`,
    headers: bearer(p.token),
  })
}

function pay(p: Party, subscriptionId: number, payload: unknown, app: App = ctx.app) {
  return app.inject({
    method: 'POST',
    url: `/subscriptions/${subscriptionId}/payment`,
    headers: bearer(p.token),
    payload: payload as object,
  })
}

function cancel(p: Party, subscriptionId: number, payload?: unknown) {
  return ctx.app.inject({
    method: 'POST',
    url: `/subscriptions/${subscriptionId}/cancellation`,
    headers: bearer(p.token),
    ...(payload !== undefined && { payload: payload as object }),
  })
}

/** The ledger rows of a subscription, oldest first. */
function ledger(subscriptionId: number, db: Db = ctx.db) {
  return db
    .selectFrom('payments')
    .select(['installment_id', 'amount', 'route', 'outcome', 'decline_code', 'transaction_id', 'created_at'])
    .where('subscription_id', '=', subscriptionId)
    .orderBy('id')
    .execute()
}

function installmentRow(id: number) {
  return ctx.db.selectFrom('installments').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

function subscriptionRow(id: number) {
  return ctx.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

/** Moves a subscription's contracting back in time, as if the worker had not run since. */
async function contractedAt(id: number, iso: string) {
  await ctx.db.updateTable('subscriptions').set({ created_at: iso }).where('id', '=', id).execute()
}

// NOW is 12:00 on 2026-11-21 in São Paulo. The worker cancels an unpaid subscription from the
// 30th calendar day after its contracting day: one contracted at 23:59:59 on 2026-10-22 (local)
// expired at 00:00 today; one contracted at 00:00 on 2026-10-23 still has today.
const EXPIRED_AT = '2026-10-23T02:59:59.000Z'
const LAST_DAY_AT = '2026-10-23T03:00:00.000Z'
const EXPIRED_UNPAID =
  'The subscription expired unpaid: installment 1 was not paid within 30 days of contracting.'

function expectError(
  response: { statusCode: number; body: string; json(): unknown },
  status: number,
  key: string,
) {
  expect(response.statusCode, response.body).toBe(status)
  const body = response.json() as { message: string; errors: Record<string, string[]> }
  expect(Object.keys(body.errors)).toEqual([key])
  expect(body.message).toBe(body.errors[key]?.[0])
  return body
}

const first = (c: Contracted) => c.installments[0] as Installment
const nth = (c: Contracted, n: number) => c.installments[n - 1] as Installment

describe('POST /subscriptions/{id}/installments/{installmentId}/notify-payment', () => {
  it('pays installment 1, activates the subscription and records one ledger row', async () => {
    const p = await party('external')
    const s = await contract(p)
    expect(await statusOf(p, s.id)).toBe('pending')

    const response = await notify(p, s.id, first(s).id)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({
      id: first(s).id,
      number: 1,
      status: 'paid',
      status_label: 'Pago',
      paid_at: PAID_AT,
    })
    expect(await statusOf(p, s.id)).toBe('pago')
    const [one, two] = await installmentsOf(p, s.id)
    expect(one).toMatchObject({ status: 'paid', status_label: 'Pago', paid_at: PAID_AT })
    expect(two).toMatchObject({ status: 'pending', paid_at: null })
    expect(await ledger(s.id)).toEqual([
      {
        installment_id: first(s).id,
        amount: INSTALLMENT_CENTS,
        route: 'notification',
        outcome: 'recorded',
        decline_code: null,
        transaction_id: null,
        created_at: NOW.toISOString(),
      },
    ])
  })

  it('answers a repeat with the same 200 and the first paid_at, recording nothing more', async () => {
    const p = await party('external')
    const s = await contract(p)
    const once = await notify(p, s.id, first(s).id)
    expect(once.statusCode, once.body).toBe(200)
    // Any later notification would carry a later time: the answer must still be the first one.
    const later = new Date(NOW.getTime() + 30 * 60_000)
    const app = await buildCheckedApp({
      config: ctx.config,
      db: ctx.db,
      clock: { now: () => later },
      logStream,
    })
    extraApps.push(app)
    for (const target of [ctx.app, app]) {
      const again = await notify(p, s.id, first(s).id, target)
      expect(again.statusCode, again.body).toBe(200)
      expect(again.json()).toEqual(once.json())
    }
    expect(await ledger(s.id)).toHaveLength(1)
  })

  it('refuses a later installment while installment 1 is unpaid, then records it once 1 is paid', async () => {
    const p = await party('external')
    const s = await contract(p)
    const refused = expectError(await notify(p, s.id, nth(s, 2).id), 422, 'status')
    expect(refused.errors.status).toEqual(['Installment 1 must be paid first.'])
    expect(await ledger(s.id)).toEqual([])
    expect((await installmentsOf(p, s.id))[1]?.status).toBe('pending')

    expect((await notify(p, s.id, first(s).id)).statusCode).toBe(200)
    const second = await notify(p, s.id, nth(s, 2).id)
    expect(second.statusCode, second.body).toBe(200)
    expect(second.json()).toMatchObject({ id: nth(s, 2).id, number: 2, status: 'paid', paid_at: PAID_AT })
    expect(await statusOf(p, s.id)).toBe('pago')
    expect((await ledger(s.id)).map((r) => [r.installment_id, r.route, r.outcome])).toEqual([
      [first(s).id, 'notification', 'recorded'],
      [nth(s, 2).id, 'notification', 'recorded'],
    ])
  })

  it('refuses a canceled subscription’s installments with errors.status', async () => {
    const p = await party('external')
    const s = await contract(p)
    expect((await cancel(p, s.id)).statusCode).toBe(200)
    for (const installment of [first(s), nth(s, 2)]) {
      expectError(await notify(p, s.id, installment.id), 422, 'status')
    }
    expect(await ledger(s.id)).toEqual([])
    expect(await statusOf(p, s.id)).toBe('canceled')
  })

  it('refuses a canceled installment of a live subscription with errors.status', async () => {
    const p = await party('external')
    const s = await contract(p)
    await ctx.db
      .updateTable('installments')
      .set({ status: 'canceled' })
      .where('id', '=', first(s).id)
      .execute()
    const body = expectError(await notify(p, s.id, first(s).id), 422, 'status')
    expect(body.message).toBe('The installment is canceled.')
    expect(await ledger(s.id)).toEqual([])
    expect(await statusOf(p, s.id)).toBe('pending')
  })

  it('still answers a paid installment after the subscription was canceled, without recording it again', async () => {
    const p = await party('external')
    const s = await contract(p)
    const paid = await notify(p, s.id, first(s).id)
    expect((await cancel(p, s.id)).statusCode).toBe(200)
    const again = await notify(p, s.id, first(s).id)
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json()).toEqual(paid.json())
    expect(await ledger(s.id)).toHaveLength(1)
  })

  it('refuses installment 1 once the subscription is past its 30 unpaid days, worker run or not', async () => {
    const p = await party('external')
    // Day 55, and the first day the worker would cancel it.
    for (const at of ['2026-09-27T15:00:00.000Z', EXPIRED_AT]) {
      const s = await contract(p)
      await contractedAt(s.id, at)
      const body = expectError(await notify(p, s.id, first(s).id), 422, 'status')
      expect(body.message).toBe(EXPIRED_UNPAID)
      expect(await ledger(s.id)).toEqual([])
      expect((await installmentsOf(p, s.id))[0]?.status).toBe('pending')
      expect(await statusOf(p, s.id)).toBe('pending')
    }
    const lastDay = await contract(p)
    await contractedAt(lastDay.id, LAST_DAY_AT)
    expect((await notify(p, lastDay.id, first(lastDay).id)).statusCode).toBe(200)
    expect(await statusOf(p, lastDay.id)).toBe('pago')
  })

  it('refuses an own-gateway partner with errors.gateway', async () => {
    const p = await party('own')
    const s = await contract(p)
    expectError(await notify(p, s.id, first(s).id), 422, 'gateway')
    expect(await ledger(s.id)).toEqual([])
    expect(await statusOf(p, s.id)).toBe('pending')
  })

  it('answers 404 for another subscription’s or another partner’s installment', async () => {
    const p = await party('external')
    const mine = await contract(p)
    const mineToo = await contract(p)
    const stranger = await partyOf(ctx.db, ctx.app, 'external')
    const theirs = await contract(stranger)
    for (const [subscriptionId, installmentId] of [
      [mine.id, first(mineToo).id],
      [mine.id, first(theirs).id],
      [theirs.id, first(theirs).id],
      [mine.id, 2_000_000_000],
    ] as const) {
      const response = await notify(p, subscriptionId, installmentId)
      expect(response.statusCode, response.body).toBe(404)
      expect(response.json()).toEqual(expectedError(response, 'not_found', { message: expect.any(String) }))
    }
    const malformed = await ctx.app.inject({
      method: 'POST',
      url: `/subscriptions/${mine.id}/installments/abc/notify-payment`,
      headers: bearer(p.token),
    })
    expect(malformed.statusCode).toBe(404)
    expect(await ledger(theirs.id)).toEqual([])
    expect(await statusOf(stranger, theirs.id)).toBe('pending')
  })

  it('requires a token', async () => {
    const p = await party('external')
    const s = await contract(p)
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/subscriptions/${s.id}/installments/${first(s).id}/notify-payment`,
    })
    expect(response.statusCode).toBe(401)
  })
})

describe('POST /subscriptions/{id}/payment', () => {
  it.each([
    [CARDS.visa, 'visa', '1111'],
    [CARDS.mastercard, 'mastercard', '4444'],
  ])(
    'approves %s: installment 1 paid, subscription pago, token/brand/last four kept',
    async (number, brand, last4) => {
      const p = await party('own')
      const s = await contract(p)
      const response = await pay(p, s.id, card(number, { holder: 'MARIA DA SILVA' }))
      expect(response.statusCode, response.body).toBe(200)
      expect(response.json()).toMatchObject({
        id: s.id,
        status: 'pago',
        valor: INSTALLMENT_CENTS / 100,
        installments_count: INSTALLMENTS,
      })
      const [one, two] = await installmentsOf(p, s.id)
      expect(one).toMatchObject({ status: 'paid', status_label: 'Pago', paid_at: PAID_AT })
      expect(two).toMatchObject({ status: 'pending', paid_at: null })

      const row = await subscriptionRow(s.id)
      expect(row.card_token).toMatch(/^tok_test_approves_[0-9a-f]+$/)
      expect(row).toMatchObject({ card_brand: brand, card_last4: last4 })
      expect((await installmentRow(first(s).id)).locked_until).toBeNull()
      expect(await ledger(s.id)).toEqual([
        {
          installment_id: first(s).id,
          amount: INSTALLMENT_CENTS,
          route: 'card',
          outcome: 'approved',
          decline_code: null,
          transaction_id: expect.stringMatching(/^txn_test_/),
          created_at: NOW.toISOString(),
        },
      ])
    },
  )

  it.each([
    [CARDS.declined, 'card_declined', 'The card was declined.'],
    [CARDS.insufficientFunds, 'insufficient_funds', 'The card has insufficient funds.'],
    [CARDS.expired, 'expired_card', 'The card has expired.'],
  ])(
    'declines %s with 402 %s: installment 1 refused, subscription pending, nothing kept',
    async (number, code, message) => {
      const p = await party('own')
      const s = await contract(p)
      const response = await pay(p, s.id, card(number))
      expect(response.statusCode, response.body).toBe(402)
      expect(response.json()).toEqual(
        expectedError(response, 'card_declined', {
          message,
          errors: { creditCard: [message] },
          decline_code: code,
        }),
      )

      expect(await statusOf(p, s.id)).toBe('pending')
      const [one] = await installmentsOf(p, s.id)
      expect(one).toMatchObject({ status: 'refused', status_label: 'Recusado', paid_at: null })
      expect((await installmentRow(first(s).id)).locked_until).toBeNull()
      expect(await subscriptionRow(s.id)).toMatchObject({
        card_token: null,
        card_brand: null,
        card_last4: null,
      })
      expect(await ledger(s.id)).toEqual([
        {
          installment_id: first(s).id,
          amount: INSTALLMENT_CENTS,
          route: 'card',
          outcome: 'declined',
          decline_code: code,
          transaction_id: expect.stringMatching(/^txn_test_/),
          created_at: NOW.toISOString(),
        },
      ])
    },
  )

  it('pays a refused installment 1 on a later approved try, with a ledger row per attempt', async () => {
    const p = await party('own')
    const s = await contract(p)
    expect((await pay(p, s.id, card(CARDS.declined))).statusCode).toBe(402)
    expect((await pay(p, s.id, card(CARDS.insufficientFunds))).statusCode).toBe(402)
    const approved = await pay(p, s.id, card(CARDS.visa))
    expect(approved.statusCode, approved.body).toBe(200)
    expect(approved.json().status).toBe('pago')
    expect((await installmentsOf(p, s.id))[0]).toMatchObject({ status: 'paid', paid_at: PAID_AT })
    expect((await ledger(s.id)).map((r) => [r.installment_id, r.outcome, r.decline_code])).toEqual([
      [first(s).id, 'declined', 'card_declined'],
      [first(s).id, 'declined', 'insufficient_funds'],
      [first(s).id, 'approved', null],
    ])
    expect((await subscriptionRow(s.id)).card_last4).toBe('1111')
  })

  it('accepts a formatted number and MM/YY', async () => {
    const p = await party('own')
    const s = await contract(p)
    const response = await pay(p, s.id, card('4111 1111 1111 1111', { expiry: '11/26' }))
    expect(response.statusCode, response.body).toBe(200)
    expect((await subscriptionRow(s.id)).card_last4).toBe('1111')
  })

  it('refuses a malformed body under creditCard keys before charging anything', async () => {
    const p = await party('own')
    const s = await contract(p)
    expectError(await pay(p, s.id, {}), 422, 'creditCard')
    const missing = await pay(p, s.id, { creditCard: {} })
    expect(missing.statusCode).toBe(422)
    expect(Object.keys(missing.json().errors).sort()).toEqual([
      'creditCard.cvv',
      'creditCard.expiry',
      'creditCard.number',
    ])
    expectError(await pay(p, s.id, card(CARDS.visa, { number: '4'.repeat(33) })), 422, 'creditCard.number')
    expectError(
      await pay(p, s.id, { creditCard: { ...card(CARDS.visa).creditCard, cvv: 123 } }),
      422,
      'creditCard.cvv',
    )
    expectError(await pay(p, s.id, card(CARDS.visa, { holder: 'x'.repeat(101) })), 422, 'creditCard.holder')
    expect(await ledger(s.id)).toEqual([])
    expect(await statusOf(p, s.id)).toBe('pending')
  })

  it.each([
    [
      'a failing Luhn check',
      { number: '4111111111111112' },
      'creditCard.number',
      'The card number is invalid.',
    ],
    ['month 13', { expiry: '1330' }, 'creditCard.expiry', 'The card expiry must be a month and year, MMYY.'],
    ['last month', { expiry: '1026' }, 'creditCard.expiry', 'The card has expired.'],
    ['a 2-digit code', { cvv: '12' }, 'creditCard.cvv', 'The card security code must be 3 or 4 digits.'],
  ])('refuses %s with 422 under its key, charging nothing', async (_label, change, key, message) => {
    const p = await party('own')
    const s = await contract(p)
    const body = expectError(await pay(p, s.id, card(CARDS.visa, change)), 422, key)
    expect(body.errors[key]).toEqual([message])
    expect(await ledger(s.id)).toEqual([])
    expect((await installmentsOf(p, s.id))[0]?.status).toBe('pending')
  })

  it('reports every card problem at once', async () => {
    const p = await party('own')
    const s = await contract(p)
    const response = await pay(p, s.id, { creditCard: { number: '1234', expiry: '0000', cvv: 'abc' } })
    expect(response.statusCode).toBe(422)
    const body = response.json()
    expect(Object.keys(body.errors).sort()).toEqual([
      'creditCard.cvv',
      'creditCard.expiry',
      'creditCard.number',
    ])
    expect(body.message).toBe('The card number is invalid. (and 2 more errors)')
  })

  // Whatever the body: the mode is what the partner must fix first, not the card it sent.
  const anyBody = [card(CARDS.visa), {}, { creditCard: {} }, { creditCard: { number: '4'.repeat(40) } }, []]

  it('refuses an external-gateway partner with errors.gateway alone, whatever the body', async () => {
    const p = await party('external')
    const s = await contract(p)
    for (const payload of anyBody) {
      const body = expectError(await pay(p, s.id, payload), 422, 'gateway')
      expect(body.message).toBe(
        'This partner uses the external gateway: notify payments through the notify-payment call.',
      )
    }
    expect(await ledger(s.id)).toEqual([])
    expect(await statusOf(p, s.id)).toBe('pending')
  })

  it('checks ownership before the gateway mode: another partner’s or an unknown subscription is 404', async () => {
    const p = await party('external')
    const theirs = await contract(await partyOf(ctx.db, ctx.app, 'own'))
    for (const id of [theirs.id, 2_000_000_000]) {
      for (const payload of [card(CARDS.visa), {}]) expect((await pay(p, id, payload)).statusCode).toBe(404)
    }
    const mine = await contract(p)
    for (const payload of [card(CARDS.visa), {}]) expectError(await pay(p, mine.id, payload), 422, 'gateway')
    // A malformed id names no subscription at all: 404, as on every route.
    for (const id of ['abc', '0']) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: `/subscriptions/${id}/payment`,
        headers: bearer(p.token),
        payload: {},
      })
      expect(response.statusCode, response.body).toBe(404)
    }
  })

  it('refuses with errors.gateway when the environment has no card gateway, whatever the body', async () => {
    const app = await appWith(null)
    const p = await party('own')
    const s = await contract(p)
    for (const payload of anyBody) {
      const body = expectError(await pay(p, s.id, payload, app), 422, 'gateway')
      expect(body.message).toBe('Card payments are not available in this environment.')
    }
    expect(await ledger(s.id)).toEqual([])
  })

  it('refuses a subscription that is not pending with errors.status, charging nothing', async () => {
    const p = await party('own')
    const paid = await contract(p)
    expect((await pay(p, paid.id, card(CARDS.visa))).statusCode).toBe(200)
    expectError(await pay(p, paid.id, card(CARDS.mastercard)), 422, 'status')
    expect(await ledger(paid.id)).toHaveLength(1)
    expect((await subscriptionRow(paid.id)).card_last4).toBe('1111')

    const canceled = await contract(p)
    expect((await cancel(p, canceled.id)).statusCode).toBe(200)
    expectError(await pay(p, canceled.id, card(CARDS.visa)), 422, 'status')
    expect(await ledger(canceled.id)).toEqual([])
  })

  it('refuses a subscription past its 30 unpaid days with errors.status, charging nothing', async () => {
    const p = await party('own')
    // Day 58, and the first day the worker would cancel it.
    for (const at of ['2026-09-24T15:00:00.000Z', EXPIRED_AT]) {
      const s = await contract(p)
      await contractedAt(s.id, at)
      const body = expectError(await pay(p, s.id, card(CARDS.visa)), 422, 'status')
      expect(body.message).toBe(EXPIRED_UNPAID)
      expect(await ledger(s.id)).toEqual([])
      expect(await installmentRow(first(s).id)).toMatchObject({ status: 'pending', locked_until: null })
      expect(await subscriptionRow(s.id)).toMatchObject({ status: 'pending', card_token: null })
    }
    // A card declined in time does not keep it open either.
    const refused = await contract(p)
    expect((await pay(p, refused.id, card(CARDS.declined))).statusCode).toBe(402)
    await contractedAt(refused.id, EXPIRED_AT)
    expectError(await pay(p, refused.id, card(CARDS.visa)), 422, 'status')
    expect((await ledger(refused.id)).map((r) => r.outcome)).toEqual(['declined'])

    const lastDay = await contract(p)
    await contractedAt(lastDay.id, LAST_DAY_AT)
    const paid = await pay(p, lastDay.id, card(CARDS.visa))
    expect(paid.statusCode, paid.body).toBe(200)
    expect(paid.json().status).toBe('pago')
  })

  it('answers 404 for another partner’s or an unknown subscription', async () => {
    const p = await party('own')
    const stranger = await partyOf(ctx.db, ctx.app, 'own')
    const theirs = await contract(stranger)
    for (const id of [theirs.id, 2_000_000_000]) {
      const response = await pay(p, id, card(CARDS.visa))
      expect(response.statusCode, response.body).toBe(404)
    }
    expect(await ledger(theirs.id)).toEqual([])
    expect(await statusOf(stranger, theirs.id)).toBe('pending')
  })
})

/** The sandbox behind a gate: each charge waits until the test opens it. */
class GatedGateway implements PaymentGateway {
  charges = 0
  private readonly sandbox = new SandboxGateway()
  private open!: () => void
  private readonly gate = new Promise<void>((resolve) => {
    this.open = resolve
  })
  private started!: () => void
  readonly firstCharge = new Promise<void>((resolve) => {
    this.started = resolve
  })

  createCustomer: PaymentGateway['createCustomer'] = (...args) => this.sandbox.createCustomer(...args)
  saveCard: PaymentGateway['saveCard'] = (...args) => this.sandbox.saveCard(...args)
  chargeSaved: PaymentGateway['chargeSaved'] = (...args) => this.sandbox.chargeSaved(...args)
  verifyCard: PaymentGateway['verifyCard'] = (...args) => this.sandbox.verifyCard(...args)
  detachCard: PaymentGateway['detachCard'] = (...args) => this.sandbox.detachCard(...args)
  refund: PaymentGateway['refund'] = (...args) => this.sandbox.refund(...args)

  async chargeCard(charge: FirstCharge) {
    this.charges += 1
    this.started()
    await this.gate
    return this.sandbox.chargeCard(charge)
  }

  release() {
    this.open()
  }
}

describe('concurrent card payments', () => {
  it('lets one of two simultaneous payments charge; the other answers 409, and so does a cancellation', async () => {
    const gateway = new GatedGateway()
    const app = await appWith(gateway)
    const p = await party('own')
    const s = await contract(p)

    const winner = pay(p, s.id, card(CARDS.visa), app)
    await gateway.firstCharge
    const loser = await pay(p, s.id, card(CARDS.mastercard), app)
    expect(loser.statusCode, loser.body).toBe(409)
    expect(loser.json()).toEqual(
      expectedError(loser, 'payment_in_progress', {
        message: 'A payment of this item is in progress: try again once it has answered.',
      }),
    )
    const cancellation = await cancel(p, s.id)
    expect(cancellation.statusCode, cancellation.body).toBe(409)
    expect(await statusOf(p, s.id)).toBe('pending')

    gateway.release()
    expect((await winner).statusCode).toBe(200)
    expect(gateway.charges).toBe(1)
    expect(await ledger(s.id)).toHaveLength(1)
    expect((await installmentRow(first(s).id)).locked_until).toBeNull()
    expect((await subscriptionRow(s.id)).card_last4).toBe('1111')
  })

  it('charges exactly once among many simultaneous payments', async () => {
    let charges = 0
    const sandbox = new SandboxGateway()
    const slow: PaymentGateway = sandboxWith({
      async chargeCard(charge) {
        charges += 1
        await new Promise((resolve) => setTimeout(resolve, 20))
        return sandbox.chargeCard(charge)
      },
    })
    const app = await appWith(slow)
    const p = await party('own')
    const s = await contract(p)
    const responses = await Promise.all(Array.from({ length: 8 }, () => pay(p, s.id, card(CARDS.visa), app)))
    const statuses = responses.map((r) => r.statusCode)
    expect(statuses.filter((code) => code === 200)).toHaveLength(1)
    expect(statuses.every((code) => [200, 409, 422].includes(code))).toBe(true)
    expect(charges).toBe(1)
    expect(await ledger(s.id)).toHaveLength(1)
  })

  it('takes over a claim that has expired, but not a current one, which it leaves in place', async () => {
    const p = await party('own')
    const s = await contract(p)
    const held = new Date(NOW.getTime() + 30_000).toISOString()
    await ctx.db
      .updateTable('installments')
      .set({ locked_until: held })
      .where('id', '=', first(s).id)
      .execute()
    expect((await pay(p, s.id, card(CARDS.visa))).statusCode).toBe(409)
    expect(await ledger(s.id)).toEqual([])
    expect(new Date((await installmentRow(first(s).id)).locked_until ?? '').toISOString()).toBe(held)

    const abandoned = new Date(NOW.getTime() - 1000).toISOString()
    await ctx.db
      .updateTable('installments')
      .set({ locked_until: abandoned })
      .where('id', '=', first(s).id)
      .execute()
    const response = await pay(p, s.id, card(CARDS.visa))
    expect(response.statusCode, response.body).toBe(200)
    expect((await installmentRow(first(s).id)).locked_until).toBeNull()
  })

  it('releases the claim when the gateway fails, recording nothing', async () => {
    const broken: PaymentGateway = sandboxWith({
      chargeCard: async () => {
        throw new Error('gateway unreachable')
      },
      chargeSaved: async () => {
        throw new Error('gateway unreachable')
      },
    })
    const app = await appWith(broken)
    const p = await party('own')
    const s = await contract(p)
    const response = await pay(p, s.id, card(CARDS.visa), app)
    expect(response.statusCode).toBe(500)
    expect(response.json()).toEqual(expectedError(response, 'server_error', { message: 'Server error.' }))
    expect(await installmentRow(first(s).id)).toMatchObject({ status: 'pending', locked_until: null })
    expect(await ledger(s.id)).toEqual([])
    // Nothing is left held: the next try goes through.
    expect((await pay(p, s.id, card(CARDS.visa))).statusCode).toBe(200)
  })
})

describe('a card charged whose charge cannot be recorded', () => {
  it('keeps the installment held, so a retry answers 409 instead of charging again, and logs the charge', async () => {
    let charges = 0
    const sandbox = new SandboxGateway()
    const counting: PaymentGateway = sandboxWith({
      chargeCard: (...args) => {
        charges += 1
        return sandbox.chargeCard(...args)
      },
    })
    // The ledger insert fails once, as when PostgreSQL restarts between the charge and its record.
    let armed = true
    const ledgerFailsOnce: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (armed && InsertQueryNode.is(node) && node.into?.table.identifier.name === 'payments') {
          armed = false
          throw Object.assign(new Error('terminating connection due to administrator command'), {
            code: '57P01',
          })
        }
        return node
      },
      transformResult: async ({ result }) => result,
    }
    const app = await buildCheckedApp({
      config: ctx.config,
      db: ctx.db.withPlugin(ledgerFailsOnce),
      clock,
      gateway: counting,
      logStream,
    })
    extraApps.push(app)
    const p = await party('own')
    const s = await contract(p)

    const failed = await pay(p, s.id, card(CARDS.visa), app)
    expect(failed.statusCode, failed.body).toBe(503)
    expect(charges).toBe(1)
    expect(await ledger(s.id)).toEqual([])
    expect((await installmentRow(first(s).id)).locked_until).not.toBeNull()
    const logged = logLines
      .map((line) => JSON.parse(line))
      .find((entry) => entry.msg === 'card charged but the charge could not be recorded')
    expect(logged).toMatchObject({
      level: 50,
      installment_id: first(s).id,
      transaction_id: expect.any(String),
    })

    const retried = await pay(p, s.id, card(CARDS.visa), app)
    expect(retried.statusCode, retried.body).toBe(409)
    expect(charges).toBe(1)
  })
})

describe('POST /subscriptions/{id}/cancellation', () => {
  it('cancels a pending subscription and all its installments, keeping the reason', async () => {
    const p = await party('external')
    const s = await contract(p)
    const response = await cancel(p, s.id, { reason: '  Cliente desistiu.  ' })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({ id: s.id, status: 'canceled' })
    const installments = await installmentsOf(p, s.id)
    expect(installments).toHaveLength(INSTALLMENTS)
    expect(installments.every((i) => i.status === 'canceled' && i.status_label === 'Cancelado')).toBe(true)
    expect(await subscriptionRow(s.id)).toMatchObject({
      status: 'canceled',
      cancel_reason: 'partner_request',
      cancel_comment: 'Cliente desistiu.',
    })
    expect(response.json().cancellation).toEqual({
      reason: 'partner_request',
      canceled_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      comment: 'Cliente desistiu.',
    })
    expect(new Date((await subscriptionRow(s.id)).canceled_at ?? '').toISOString()).toBe(NOW.toISOString())
  })

  it('keeps paid installments paid and cancels the rest, refused ones included', async () => {
    const external = await party('external')
    const paid = await contract(external)
    await notify(external, paid.id, first(paid).id)
    expect((await cancel(external, paid.id)).statusCode).toBe(200)
    const [one, ...rest] = await installmentsOf(external, paid.id)
    expect(one).toMatchObject({ status: 'paid', paid_at: PAID_AT })
    expect(rest.every((i) => i.status === 'canceled')).toBe(true)

    const own = await party('own')
    const refused = await contract(own)
    expect((await pay(own, refused.id, card(CARDS.declined))).statusCode).toBe(402)
    expect((await cancel(own, refused.id)).statusCode).toBe(200)
    expect((await installmentsOf(own, refused.id))[0]?.status).toBe('canceled')
  })

  it('accepts no body at all, keeping no reason', async () => {
    const p = await party('own')
    const s = await contract(p)
    const response = await cancel(p, s.id)
    expect(response.statusCode, response.body).toBe(200)
    expect(await subscriptionRow(s.id)).toMatchObject({
      status: 'canceled',
      cancel_reason: 'partner_request',
      cancel_comment: null,
    })
  })

  it('refuses a reason over 255 characters', async () => {
    const p = await party('own')
    const s = await contract(p)
    expectError(await cancel(p, s.id, { reason: 'x'.repeat(256) }), 422, 'reason')
    expect(await statusOf(p, s.id)).toBe('pending')
    expect((await cancel(p, s.id, { reason: 'x'.repeat(255) })).statusCode).toBe(200)
  })

  it('refuses an already canceled subscription with errors.status, changing nothing', async () => {
    const p = await party('external')
    const s = await contract(p)
    expect((await cancel(p, s.id, { reason: 'first' })).statusCode).toBe(200)
    expectError(await cancel(p, s.id, { reason: 'second' }), 422, 'status')
    expect((await subscriptionRow(s.id)).cancel_comment).toBe('first')
  })

  it('answers 404 for another partner’s subscription', async () => {
    const p = await party('external')
    const stranger = await partyOf(ctx.db, ctx.app, 'external')
    const theirs = await contract(stranger)
    expect((await cancel(p, theirs.id)).statusCode).toBe(404)
    expect(await statusOf(stranger, theirs.id)).toBe('pending')
  })
})

describe('card data at rest and in logs', () => {
  it('appears in no table and no log line', async () => {
    // Make sure every sandbox card of this file went through at least once, whatever ran before.
    const p = await party('own')
    for (const number of Object.values(CARDS)) await pay(p, (await contract(p)).id, card(number))

    const current = isPostgres(ctx.db)
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(ctx.db)).rows[0]?.schema
      : undefined
    const tables = (await ctx.db.introspection.getTables()).filter((t) => t.schema === current)
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(['subscriptions', 'installments', 'payments']),
    )
    const dump: string[] = []
    for (const table of tables) {
      const rows = await ctx.db
        .selectFrom(table.name as 'payments')
        .selectAll()
        .execute()
      dump.push(JSON.stringify(rows))
    }
    const everything = dump.join('\n')
    // The dump is real: it holds what the payments did keep.
    expect(everything).toContain('tok_test_')
    expect(everything).toContain('"card_last4":"4444"')

    const logs = logLines.join('')
    expect(logs).toContain('/payment')
    // Not inside a run of hex digits and dashes: request ids and hashes (UUIDs, hex) hold any
    // four digits by chance (`…-9876-…` in about one id of 13,000); a leaked code stands alone.
    const cvv = new RegExp(`(?<![0-9a-fA-F-])${CVV}(?![0-9a-fA-F-])`)
    for (const [where, text] of [
      ['database', everything],
      ['logs', logs],
    ] as const) {
      for (const number of Object.values(CARDS))
        expect(text.includes(number), `${number} in ${where}`).toBe(false)
      expect(cvv.test(text), `security code in ${where}`).toBe(false)
      expect(text.includes('"cvv"'), `a cvv field in ${where}`).toBe(false)
    }
  })
})

describe('concurrent notifications through two database connections', () => {
  const dir = mkdtempSync(join(tmpdir(), 'amparo-payments-'))
  let database: TestDatabase
  let secondDb: Db
  const apps: App[] = []
  // Every reading moves the clock a second on: a notification that paid again would show another time.
  let tick = NOW.getTime()
  const ticking: Clock = {
    now: () => {
      tick += 1000
      return new Date(tick)
    },
  }

  beforeAll(async () => {
    // SQLite on a file (two connections to one file); PostgreSQL: the same schema through two pools.
    database = await createTestDatabase({ sqliteFile: join(dir, 'amparo.sqlite') })
    secondDb = createDb(database.config.database)
    for (const db of [database.db, secondDb]) {
      const interleaved = db.withPlugin(interleaving)
      apps.push(
        await buildCheckedApp({ config: database.config, db: interleaved, clock: ticking, logger: false }),
      )
    }
    await seedCatalog(database.db)
  })
  afterAll(async () => {
    for (const app of apps) await app.close()
    await secondDb?.destroy()
    await database?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('records exactly one payment for 20 simultaneous notifications, all answering the same 200', async () => {
    const [one, two] = apps as [App, App]
    const p = await partyOf(database.db, one, 'external')
    const s = await contract(p, one)
    for (const installment of [first(s), nth(s, 2)]) {
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => notify(p, s.id, installment.id, i % 2 === 0 ? one : two)),
      )
      for (const response of responses) expect(response.statusCode, response.body).toBe(200)
      const bodies = responses.map((r) => r.json())
      expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1)
      expect(bodies[0]).toMatchObject({ id: installment.id, status: 'paid', paid_at: expect.any(String) })
      const rows = (await ledger(s.id, database.db)).filter((r) => r.installment_id === installment.id)
      expect(rows).toHaveLength(1)
    }
    const subscription = await database.db
      .selectFrom('subscriptions')
      .select('status')
      .where('id', '=', s.id)
      .executeTakeFirstOrThrow()
    expect(subscription.status).toBe('pago')
  })
})
