import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { addDays, formatDate } from '../src/shared/time.js'
import { type ClaimParty, claimOf, claimParty, paidSubscription } from './helpers/claim-decisions-world.js'
import { documentForm, pdf, png } from './helpers/claim-documents.js'
import { type ConsoleHeaders, type ConsoleTestContext, createConsoleApp } from './helpers/console.js'
import { useTestApp } from './helpers/test-app.js'
import { bearer, seedCatalog } from './helpers/world.js'

// A claim's deadline in the console (README, Operator console: Sinistros; docs/decisions.md, Claim
// deadline): set by the upload of its last required document, suspended by a request for more and
// counted afresh when they arrive; the open queue sorted by it, and the Painel's money owed and
// deadlines. The day arithmetic itself is claim-deadline.rules.test.ts's.

let consoleCtx: ConsoleTestContext
let p: ClaimParty
let adjuster: ConsoleHeaders

const ctx = useTestApp()
beforeAll(async () => {
  consoleCtx = await createConsoleApp({ over: () => ctx })
  await consoleCtx.console.ready()
  p = await claimParty(ctx.app, ctx.db, (await seedCatalog(ctx.db)).model('Galaxy S25').id)
  adjuster = await consoleCtx.loginAs('adjuster')
})
afterAll(async () => {
  await consoleCtx?.close()
})

const DAY = 86_400_000
const today = () => formatDate(new Date().toISOString(), ctx.config.timeZone)

async function get(url: string) {
  const response = await consoleCtx.console.inject({ method: 'GET', url, headers: adjuster })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}
async function post(url: string, payload: object) {
  const response = await consoleCtx.console.inject({ method: 'POST', url, headers: adjuster, payload })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}
async function upload(id: number, kind: string, bytes = pdf(`${kind} ${Math.random()}`)) {
  const body = documentForm(kind, bytes, `${kind}.pdf`, 'application/pdf')
  const response = await ctx.app.inject({
    method: 'POST',
    url: `/claims/${id}/documents`,
    headers: { ...bearer(p.token), ...body.headers },
    payload: body.payload,
  })
  expect(response.statusCode, response.body).toBe(201)
}
/** The claim's row in the open queue of its partner. */
async function queued(id: number) {
  const page = await get(`/api/claims?status=open&partner_id=${p.partner.id}&per_page=100`)
  return page.data.find((claim: { id: number }) => claim.id === id)
}
/** As if the claim's last required document had arrived `days` ago. */
const completedDaysAgo = (id: number, days: number) =>
  retryingTransaction(ctx.db, (trx) =>
    trx
      .updateTable('claims')
      .set({ deadline_started_at: new Date(Date.now() - days * DAY).toISOString() })
      .where('id', '=', id)
      .execute(),
  )
const newClaim = async (status: 'documents_pending' | 'under_review' = 'under_review') =>
  claimOf(ctx.db, { subscriptionId: await paidSubscription(ctx.app, p) }, status)

describe('the deadline', () => {
  it('runs 30 days from the last required document, is suspended by a request and counted afresh when it is answered', async () => {
    const id = await newClaim('documents_pending')
    expect((await queued(id)).deadline).toEqual({
      state: 'suspended',
      state_label: 'Prazo suspenso',
      due_on: null,
      days_left: null,
    })
    await upload(id, 'photo', png(0x42))
    expect((await queued(id)).deadline).toMatchObject({ state: 'suspended' })
    await upload(id, 'invoice')
    expect((await queued(id)).deadline).toEqual({
      state: 'on_time',
      state_label: 'No prazo',
      due_on: addDays(today(), 30),
      days_left: 30,
    })

    await completedDaysAgo(id, 26)
    expect((await queued(id)).deadline).toMatchObject({ state: 'due_this_week', days_left: 4 })
    await post(`/api/claims/${id}/request-documents`, {
      kinds: ['repair_quote'],
      message: 'Envie o orçamento do reparo, por favor.',
    })
    expect((await queued(id)).deadline).toMatchObject({ state: 'suspended', due_on: null })
    await upload(id, 'repair_quote')
    expect((await queued(id)).deadline).toMatchObject({
      state: 'on_time',
      due_on: addDays(today(), 30),
      days_left: 30,
    })
  })

  it('is none once the claim is closed', async () => {
    const id = await newClaim()
    await post(`/api/claims/${id}/deny`, { reason_code: 'other', note: 'Sem cobertura para o caso.' })
    const page = await get(`/api/claims?status=denied&partner_id=${p.partner.id}`)
    expect(page.data.find((claim: { id: number }) => claim.id === id)).toMatchObject({ deadline: null })
  })
})

describe('the open queue and the Painel', () => {
  const claims: Record<string, number> = {}
  beforeAll(async () => {
    // A partner of its own, so that the queue holds only these.
    p = await claimParty(ctx.app, ctx.db, p.modelId)
    claims.onTime = await newClaim()
    claims.pending = await newClaim('documents_pending')
    claims.overdue = await newClaim()
    claims.dueThisWeek = await newClaim()
    claims.approved = await newClaim()
    claims.settled = await newClaim()
    await post(`/api/claims/${claims.approved}/approve`, {
      settlement_method: 'repair',
      approved_amount_cents: 300_000,
    })
    await post(`/api/claims/${claims.settled}/approve`, {
      settlement_method: 'repair',
      approved_amount_cents: 250_000,
    })
    await post(`/api/claims/${claims.settled}/settle`, { reference: 'OS-77' })
    await completedDaysAgo(claims.overdue as number, 35)
    await completedDaysAgo(claims.dueThisWeek as number, 26)
    await completedDaysAgo(claims.approved as number, 28)
  })

  it('comes by deadline, the overdue first and marked, those suspended last, closed ones left out', async () => {
    const page = await get(`/api/claims?status=open&partner_id=${p.partner.id}`)
    const rows = page.data.map((c: { id: number; deadline: { state: string; days_left: number | null } }) => [
      c.id,
      c.deadline.state,
      c.deadline.days_left,
    ])
    expect(rows).toEqual([
      [claims.overdue, 'overdue', -5],
      [claims.approved, 'due_this_week', 2],
      [claims.dueThisWeek, 'due_this_week', 4],
      [claims.onTime, 'on_time', 30],
      [claims.pending, 'suspended', null],
    ])
    expect(page.data[0]).toMatchObject({
      deadline: { state_label: 'Atrasado', due_on: addDays(today(), -5) },
      age_days: 0,
      fraud_signals: ['early_claim'],
    })
    expect(page.data[1]).toMatchObject({ status: 'approved', payable_amount_cents: expect.any(Number) })

    const all = await get(`/api/claims?partner_id=${p.partner.id}`)
    expect(all.data.map((c: { id: number }) => c.id)).toEqual(Object.values(claims).sort((a, b) => a - b))
  })

  it('answers the Painel’s money owed, incurred loss ratio and deadlines from the same claims', async () => {
    const partnerClaim = async (id: number) =>
      (await ctx.app.inject({ method: 'GET', url: `/claims/${id}`, headers: bearer(p.token) })).json()
    const owed = Math.round((await partnerClaim(claims.approved as number)).decision.payable_amount * 100)
    const paid = Math.round((await partnerClaim(claims.settled as number)).decision.payable_amount * 100)

    const body = await get('/api/dashboard')
    const queue = await get('/api/claims?status=open&per_page=100')
    const count = (state: string) =>
      queue.data.filter((c: { deadline: { state: string } }) => c.deadline.state === state).length
    const approvedNow = await get('/api/claims?status=approved&per_page=100')
    const owedNow = approvedNow.data.reduce(
      (sum: number, c: { payable_amount_cents: number }) => sum + c.payable_amount_cents,
      0,
    )
    expect(body.open_claims).toEqual({
      owed: { count: approvedNow.total, payable_cents: owedNow },
      overdue: count('overdue'),
      due_this_week: count('due_this_week'),
    })
    expect(body.open_claims.overdue).toBeGreaterThanOrEqual(1)
    expect(body.open_claims.due_this_week).toBeGreaterThanOrEqual(2)

    const mine = body.loss_ratio.find(
      (row: { partner_id: number; plan_id: number }) =>
        row.partner_id === p.partner.id && row.plan_id === p.subscriptionPlanId,
    )
    expect(mine).toMatchObject({ claims_paid_cents: paid, claims_owed_cents: owed })
    const ratio = (cents: number, of: number) => Math.round((cents / of) * 10_000) / 10_000
    expect(mine.incurred_ratio).toBe(ratio(paid + owed, mine.premiums_collected_cents))
    expect(body.totals.claims_owed_cents).toBe(owedNow)
    expect(body.totals.incurred_ratio).toBe(
      ratio(body.totals.claims_paid_cents + owedNow, body.totals.collected_cents),
    )
  })

  it('counts a claim approved in a past month and settled after it as owed at that month’s end', async () => {
    const approvedAt = new Date(Date.now() - 60 * DAY).toISOString()
    await retryingTransaction(ctx.db, (trx) =>
      trx
        .updateTable('claims')
        .set({ decided_at: approvedAt })
        .where('id', '=', claims.settled as number)
        .execute(),
    )
    const month = formatDate(approvedAt, ctx.config.timeZone).slice(0, 7)
    const body = await get(`/api/dashboard?from=${month}&to=${month}`)
    const mine = body.loss_ratio.find(
      (row: { partner_id: number; plan_id: number }) =>
        row.partner_id === p.partner.id && row.plan_id === p.subscriptionPlanId,
    )
    const settled = await consoleCtx.db
      .selectFrom('claims')
      .select('payable_amount')
      .where('id', '=', claims.settled as number)
      .executeTakeFirstOrThrow()
    expect(mine).toMatchObject({ claims_paid_cents: 0, claims_owed_cents: Number(settled.payable_amount) })
    expect(body.totals.claims_owed_cents).toBe(Number(settled.payable_amount))
  })
})
