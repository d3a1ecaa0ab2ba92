import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateTo, migrateToLatest } from '../src/db/migrate.js'
import { retryingTransaction } from '../src/db/transaction.js'
import {
  type ClaimParty,
  claimOf,
  claimParty,
  paidAnnualPlan,
  paidSubscription,
} from './helpers/claim-decisions-world.js'
import { type ConsoleHeaders, type ConsoleTestContext, createConsoleApp } from './helpers/console.js'
import { useTestApp } from './helpers/test-app.js'
import { bearer, seedCatalog } from './helpers/world.js'

// The dashboard (README, Operator console: Painel): its figures equal the ones a test adds up from
// what the partner API shows of the same contracts, payments and claims; an empty database answers
// zeros. The arithmetic itself (months, rounding) is dashboard.rules.test.ts's.

let consoleCtx: ConsoleTestContext
let viewer: ConsoleHeaders
let adjuster: ConsoleHeaders
const parties: ClaimParty[] = []

const ctx = useTestApp()
beforeAll(async () => {
  consoleCtx = await createConsoleApp({ over: () => ctx })
  await consoleCtx.console.ready()
  const model = (await seedCatalog(ctx.db)).model('Galaxy S25').id
  parties.push(await claimParty(ctx.app, ctx.db, model), await claimParty(ctx.app, ctx.db, model))
  viewer = await consoleCtx.loginAs('viewer')
  adjuster = await consoleCtx.loginAs('adjuster')
})
afterAll(async () => {
  await consoleCtx?.close()
})

const cents = (reais: number) => Math.round(reais * 100)
const api = async (party: ClaimParty, url: string) => {
  const response = await ctx.app.inject({ method: 'GET', url, headers: bearer(party.token) })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}
const decide = async (id: number, action: string, payload: object) => {
  const response = await consoleCtx.console.inject({
    method: 'POST',
    url: `/api/claims/${id}/${action}`,
    headers: adjuster,
    payload,
  })
  expect(response.statusCode, response.body).toBe(200)
}
const month = (offset: number) => {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString().slice(0, 7)
}

describe('on an empty database', () => {
  it('answers zeros for every month, no ratio, and no protections', async () => {
    const empty = await createConsoleApp()
    try {
      const headers = await empty.loginAs('viewer')
      const response = await empty.console.inject({ method: 'GET', url: '/api/dashboard', headers })
      expect(response.statusCode, response.body).toBe(200)
      const body = response.json()
      expect(body.premiums).toHaveLength(12)
      expect(
        body.premiums.every(
          (m: { written_cents: number; collected_cents: number }) =>
            m.written_cents === 0 && m.collected_cents === 0,
        ),
      ).toBe(true)
      expect(body.claims).toHaveLength(12)
      expect(body).toMatchObject({
        active_protections: { subscriptions: 0, annual_plans: 0 },
        open_claims: { owed: { count: 0, payable_cents: 0 }, overdue: 0, due_this_week: 0 },
        loss_ratio: [],
        totals: {
          written_cents: 0,
          collected_cents: 0,
          claims_paid_cents: 0,
          ratio: null,
          claims_owed_cents: 0,
          incurred_ratio: null,
        },
      })
    } finally {
      await empty.close()
    }
  })
})

describe('figures', () => {
  it('equal the ones computed from the partner API’s data', async () => {
    // Each partner: two paid subscriptions and an annual plan; one claim settled, one denied, one under review.
    const expected = { written: 0, collected: 0, paid: 0, opened: 0, approved: 0, denied: 0, settled: 0 }
    const perPlan = new Map<number, { collected: number; paid: number }>()
    const plan = (id: number) => {
      const found = perPlan.get(id) ?? { collected: 0, paid: 0 }
      perPlan.set(id, found)
      return found
    }
    for (const [index, party] of parties.entries()) {
      const subscriptions = [await paidSubscription(ctx.app, party), await paidSubscription(ctx.app, party)]
      const annualPlanId = await paidAnnualPlan(ctx.app, party)
      for (const id of subscriptions) {
        const installments: { amount: number; status: string }[] = await api(
          party,
          `/subscriptions/${id}/installments`,
        )
        expected.written += installments.reduce((sum, i) => sum + cents(i.amount), 0)
        const paid = installments
          .filter((i) => i.status === 'paid')
          .reduce((sum, i) => sum + cents(i.amount), 0)
        expected.collected += paid
        plan(party.subscriptionPlanId).collected += paid
      }
      const annual = await api(party, `/annual-plans/${annualPlanId}`)
      expected.written += cents(annual.premium)
      expected.collected += cents(annual.premium)
      plan(party.annualPlanId).collected += cents(annual.premium)

      const settled = await claimOf(ctx.db, { subscriptionId: subscriptions[0] as number })
      await decide(settled, 'approve', {
        settlement_method: 'repair',
        approved_amount_cents: 200_000 + index * 50_000,
      })
      await decide(settled, 'settle', { reference: `OS-${index}` })
      const denied = await claimOf(ctx.db, { subscriptionId: subscriptions[1] as number })
      await decide(denied, 'deny', { reason_code: 'other', note: 'Sem cobertura.' })
      await claimOf(ctx.db, { annualPlanId })
      const claim = await api(party, `/claims/${settled}`)
      expected.paid += cents(claim.decision.payable_amount)
      plan(party.subscriptionPlanId).paid += cents(claim.decision.payable_amount)
      expected.opened += 3
      expected.approved += 1
      expected.denied += 1
      expected.settled += 1
    }

    const response = await consoleCtx.console.inject({
      method: 'GET',
      url: `/api/dashboard?from=${month(-1)}&to=${month(1)}`,
      headers: viewer,
    })
    expect(response.statusCode, response.body).toBe(200)
    const body = response.json()
    expect(body.period).toEqual({ from: month(-1), to: month(1) })
    expect(body.premiums.map((m: { month: string }) => m.month)).toEqual([month(-1), month(0), month(1)])
    const sum = (key: string, rows: Record<string, number>[]) =>
      rows.reduce((total, row) => total + (row[key] ?? 0), 0)
    expect(body.totals).toMatchObject({
      written_cents: expected.written,
      collected_cents: expected.collected,
      claims_paid_cents: expected.paid,
      ratio: Math.round((expected.paid / expected.collected) * 10_000) / 10_000,
    })
    expect(sum('written_cents', body.premiums)).toBe(expected.written)
    expect(sum('collected_cents', body.premiums)).toBe(expected.collected)
    for (const key of ['opened', 'approved', 'denied', 'settled'] as const)
      expect(sum(key, body.claims), key).toBe(expected[key])
    expect(body.active_protections).toEqual({ subscriptions: 4, annual_plans: 2 })

    expect(body.loss_ratio).toHaveLength(perPlan.size)
    for (const row of body.loss_ratio) {
      const mine = perPlan.get(row.plan_id)
      expect(row, `plan ${row.plan_id}`).toMatchObject({
        premiums_collected_cents: mine?.collected,
        claims_paid_cents: mine?.paid,
        ratio: mine?.collected ? Math.round(((mine?.paid ?? 0) / mine.collected) * 10_000) / 10_000 : null,
      })
      expect(row.partner_name).not.toBe('')
      expect(row.plan_name).not.toBe('')
    }
  })

  it('keeps in premium_hours what migration 0030 computes again from the contracts and the ledger', async () => {
    const kept = () =>
      ctx.db.selectFrom('premium_hours').selectAll().orderBy(['hour', 'partner_id', 'plan_id']).execute()
    const byTriggers = await kept()
    expect(byTriggers.length).toBeGreaterThan(0)
    await migrateTo(ctx.db, '0017-operators')
    await migrateToLatest(ctx.db)
    expect(
      (await kept()).map((row) => ({
        ...row,
        written: Number(row.written),
        collected: Number(row.collected),
      })),
    ).toEqual(
      byTriggers.map((row) => ({ ...row, written: Number(row.written), collected: Number(row.collected) })),
    )
  })

  it('groups months in the service’s zone: 23:59 on the 30th of November in São Paulo is November', async () => {
    expect(ctx.config.timeZone).toBe('America/Sao_Paulo')
    const [first, second] = await ctx.db.selectFrom('claims').select(['id', 'partner_id']).limit(2).execute()
    if (!first || !second) throw new Error('the figures test opens claims first')
    // 02:59 UTC on 1 December is 23:59 on 30 November in São Paulo; 03:00 UTC is 00:00 on 1 December.
    await retryingTransaction(ctx.db, (trx) =>
      trx
        .updateTable('claims')
        .set({ created_at: '2024-12-01T02:59:00.000Z' })
        .where('id', '=', first.id)
        .execute(),
    )
    await retryingTransaction(ctx.db, (trx) =>
      trx
        .updateTable('claims')
        .set({ created_at: '2024-12-01T03:00:00.000Z' })
        .where('id', '=', second.id)
        .execute(),
    )
    await retryingTransaction(ctx.db, (trx) =>
      trx
        .insertInto('premium_hours')
        .values([
          { hour: '2024-12-01T02', partner_id: first.partner_id, plan_id: 0, written: 0, collected: 100 },
          { hour: '2024-12-01T03', partner_id: first.partner_id, plan_id: 0, written: 0, collected: 1_000 },
        ])
        .execute(),
    )
    const response = await consoleCtx.console.inject({
      method: 'GET',
      url: '/api/dashboard?from=2024-11&to=2024-12',
      headers: viewer,
    })
    expect(response.statusCode, response.body).toBe(200)
    const body = response.json()
    expect(body.claims).toMatchObject([
      { month: '2024-11', opened: 1 },
      { month: '2024-12', opened: 1 },
    ])
    expect(body.premiums).toMatchObject([
      { month: '2024-11', collected_cents: 100 },
      { month: '2024-12', collected_cents: 1_000 },
    ])
  })

  it('refuses a malformed or reversed period with 422', async () => {
    const ask = (query: string) =>
      consoleCtx.console.inject({ method: 'GET', url: `/api/dashboard?${query}`, headers: viewer })
    expect((await ask('from=2026-13')).statusCode).toBe(422)
    const reversed = await ask('from=2026-05&to=2026-04')
    expect(reversed.statusCode).toBe(422)
    expect(reversed.json()).toMatchObject({ code: 'validation_failed', errors: { to: [expect.any(String)] } })
  })
})
