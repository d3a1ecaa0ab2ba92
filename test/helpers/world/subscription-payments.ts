import { afterAll, beforeAll, expect } from 'vitest'
import type { App } from '../../../src/app.js'
import type { Db } from '../../../src/db/database.js'
import type { GatewayMode } from '../../../src/db/tables/partner.js'
import { retryingTransaction } from '../../../src/db/transaction.js'
import type { PaymentGateway } from '../../../src/modules/payments/payment-gateway.js'
import type { Clock } from '../../../src/shared/time.js'
import type { Installment } from '../api-types.js'
import { buildCheckedApp, type TestContext, useTestApp } from '../test-app.js'
import { bearer, seedCatalog, seller, TOTAL_12X } from '../world.js'

// 15:00 UTC is 12:00 in São Paulo; the card expiry rule compares with November 2026.
export const NOW = new Date('2026-11-21T15:00:00.000Z')
export const PAID_AT = '2026-11-21 12:00:00'
export const clock: Clock = { now: () => NOW }

// Galaxy S25: default LMI R$ 6499.00 × 1.20 % a month = R$ 77.988 → 7799 cents each installment.
export const INSTALLMENT_CENTS = 7799
export const INSTALLMENTS = 12

export const CARDS = {
  visa: '4111111111111111',
  mastercard: '5555555555554444',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  expired: '4000000000000069',
}
// Four digits that no amount, id, date or token of this file contains as a whole word.
export const CVV = '9876'
export const card = (number: string, extra: Record<string, string> = {}) => ({
  creditCard: { number, expiry: '1230', cvv: CVV, ...extra },
})

export interface Party {
  partnerId: number
  token: string
}
export interface Contracted {
  id: number
  installments: Installment[]
}

export let ctx: TestContext
/** Everything every app of this file logs, at trace level, through the production logger options. */
export const logLines: string[] = []
export const logStream = { write: (line: string) => void logLines.push(line) }
export const extraApps: App[] = []

/** Another app on the same database, e.g. with another card gateway. */
export async function appWith(gateway: PaymentGateway | null): Promise<App> {
  const app = await buildCheckedApp({ config: ctx.config, db: ctx.db, clock, gateway, logStream })
  extraApps.push(app)
  return app
}

/** A partner with a 12-installment plan and a customer, logged in on `app`. */
export async function partyOf(
  db: Db,
  app: App,
  gateway: GatewayMode,
): Promise<Party & { planId: number; modelId: number }> {
  const plans = [{ ...TOTAL_12X, installments: INSTALLMENTS }]
  const s = await seller({ app, db }, { partner: gateway, plans, plansAt: NOW.toISOString() })
  const model = await db
    .selectFrom('models')
    .select('id')
    .where('name', '=', 'Galaxy S25')
    .executeTakeFirstOrThrow()
  return { partnerId: s.partnerId, token: s.token, planId: s.planId, modelId: model.id }
}

export const parties = new Map<GatewayMode, Promise<Awaited<ReturnType<typeof partyOf>>>>()
/** One shared partner per gateway mode for the main app; each test contracts its own subscriptions. */
export function party(gateway: GatewayMode) {
  if (!parties.has(gateway)) parties.set(gateway, partyOf(ctx.db, ctx.app, gateway))
  return parties.get(gateway) as Promise<Awaited<ReturnType<typeof partyOf>>>
}

export async function contract(
  p: Awaited<ReturnType<typeof partyOf>>,
  app: App = ctx.app,
): Promise<Contracted> {
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

export async function installmentsOf(p: Party, id: number, app: App = ctx.app): Promise<Installment[]> {
  const response = await app.inject({
    method: 'GET',
    url: `/subscriptions/${id}/installments`,
    headers: bearer(p.token),
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}

export async function statusOf(p: Party, id: number): Promise<string> {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/subscriptions/${id}`,
    headers: bearer(p.token),
  })
  expect(response.statusCode, response.body).toBe(200)
  return response.json().status
}

export function notify(p: Party, subscriptionId: number, installmentId: number, app: App = ctx.app) {
  return app.inject({
    method: 'POST',
    url: `/subscriptions/${subscriptionId}/installments/${installmentId}/notify-payment`,
    headers: bearer(p.token),
  })
}

export function pay(p: Party, subscriptionId: number, payload: unknown, app: App = ctx.app) {
  return app.inject({
    method: 'POST',
    url: `/subscriptions/${subscriptionId}/payment`,
    headers: bearer(p.token),
    payload: payload as object,
  })
}

export function cancel(p: Party, subscriptionId: number, payload?: unknown) {
  return ctx.app.inject({
    method: 'POST',
    url: `/subscriptions/${subscriptionId}/cancellation`,
    headers: bearer(p.token),
    ...(payload !== undefined && { payload: payload as object }),
  })
}

/** The ledger rows of a subscription, oldest first. */
export function ledger(subscriptionId: number, db: Db = ctx.db) {
  return db
    .selectFrom('payments')
    .select(['installment_id', 'amount', 'route', 'outcome', 'decline_code', 'transaction_id', 'created_at'])
    .where('subscription_id', '=', subscriptionId)
    .orderBy('id')
    .execute()
}

export function installmentRow(id: number) {
  return ctx.db.selectFrom('installments').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

export function subscriptionRow(id: number) {
  return ctx.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

/** Moves a subscription's contracting back in time, as if the worker had not run since. */
export async function contractedAt(id: number, iso: string) {
  await retryingTransaction(ctx.db, (trx) =>
    trx.updateTable('subscriptions').set({ created_at: iso }).where('id', '=', id).execute(),
  )
}

// NOW is 12:00 on 2026-11-21 in São Paulo. The worker cancels an unpaid subscription from the
// 30th calendar day after its contracting day: one contracted at 23:59:59 on 2026-10-22 (local)
// expired at 00:00 today; one contracted at 00:00 on 2026-10-23 still has today.
export const EXPIRED_AT = '2026-10-23T02:59:59.000Z'
export const LAST_DAY_AT = '2026-10-23T03:00:00.000Z'
export const EXPIRED_UNPAID =
  'The subscription expired unpaid: installment 1 was not paid within 30 days of contracting.'

export function expectError(
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

export const first = (c: Contracted) => c.installments[0] as Installment
export const nth = (c: Contracted, n: number) => c.installments[n - 1] as Installment

/** Opens the app before a file's first test; closes it and every extra app after its last. */
export function useSubscriptionPaymentsWorld(): void {
  ctx = useTestApp({ clock, env: { LOG_LEVEL: 'trace' }, logStream })
  beforeAll(async () => {
    await seedCatalog(ctx.db)
  })
  // After hooks run last-registered first: the extra apps close before the database goes.
  // The file's partners, apps and log lines go with its database (a worker runs files one after
  // another in one module graph: vitest.config.ts).
  afterAll(async () => {
    for (const app of extraApps) await app.close()
    extraApps.length = 0
    logLines.length = 0
    parties.clear()
  })
}
