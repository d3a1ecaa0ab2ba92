import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import {
  type ClaimParty,
  claimOf,
  claimParty,
  paidAnnualPlan,
  paidSubscription,
} from './helpers/claim-decisions-world.js'
import { documentForm, pdf, png } from './helpers/claim-documents.js'
import { type ConsoleHeaders, type ConsoleTestContext, createConsoleApp } from './helpers/console.js'
import { useTestApp } from './helpers/test-app.js'
import { bearer, seedCatalog } from './helpers/world.js'

// The claims desk of the operator console (README, Operator console: Sinistros): the queue, a
// claim's page with its documents, and the decisions, audited, with the loser of a race told 409.
// Galaxy S25: LMI R$ 6,499.00, franchise 15 % = R$ 974.85.

let consoleCtx: ConsoleTestContext
let p: ClaimParty
let other: ClaimParty
let viewer: ConsoleHeaders
let adjuster: ConsoleHeaders
let secondAdjuster: ConsoleHeaders

const ctx = useTestApp()
beforeAll(async () => {
  consoleCtx = await createConsoleApp({ over: () => ctx })
  await consoleCtx.console.ready()
  const model = (await seedCatalog(ctx.db)).model('Galaxy S25').id
  p = await claimParty(ctx.app, ctx.db, model)
  other = await claimParty(ctx.app, ctx.db, model)
  viewer = await consoleCtx.loginAs('viewer')
  adjuster = await consoleCtx.loginAs('adjuster')
  secondAdjuster = await consoleCtx.loginAs('adjuster')
})
afterAll(async () => {
  await consoleCtx?.close()
})

const get = (url: string, headers: ConsoleHeaders = viewer) =>
  consoleCtx.console.inject({ method: 'GET', url, headers })
const post = (url: string, payload: object, headers: ConsoleHeaders = adjuster) =>
  consoleCtx.console.inject({ method: 'POST', url, headers, payload })
const underReview = async (party = p) =>
  claimOf(ctx.db, { subscriptionId: await paidSubscription(ctx.app, party) })
const auditOf = (claimId: number) =>
  consoleCtx.db
    .selectFrom('audit_log')
    .selectAll()
    .where('record_type', '=', 'claim')
    .where('record_id', '=', String(claimId))
    .orderBy('id')
    .execute()

describe('the queue', () => {
  let first: number
  let second: number
  let others: number
  beforeAll(async () => {
    first = await underReview()
    second = await claimOf(ctx.db, { annualPlanId: await paidAnnualPlan(ctx.app, p) }, 'documents_pending')
    others = await underReview(other)
    await retryingTransaction(ctx.db, (trx) =>
      trx.updateTable('claims').set({ fraud_signals: '[]' }).where('id', '=', second).execute(),
    )
  })

  it('lists every partner’s claims, oldest first, with partner, customer, device and signals', async () => {
    const response = await get('/api/claims?per_page=100')
    expect(response.statusCode, response.body).toBe(200)
    const body = response.json()
    const ids = body.data.map((c: { id: number }) => c.id)
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b))
    expect(ids).toEqual(expect.arrayContaining([first, second, others]))
    expect(body).toMatchObject({ current_page: 1, per_page: 100, total: ids.length, last_page: 1 })
    expect(body.data.find((c: { id: number }) => c.id === first)).toMatchObject({
      status: 'under_review',
      status_label: 'Em análise',
      type: 'accidental_damage',
      partner: { id: p.partner.id },
      device: { model: { name: 'Galaxy S25' } },
      fraud_signals: ['early_claim'],
      lmi_cents: 649_900,
      franchise_cents: 97_485,
      approved_amount_cents: null,
    })
  })

  it('filters by status, partner, type and fraud signal, and pages', async () => {
    const ids = async (query: string) =>
      (await get(`/api/claims?${query}`)).json().data.map((c: { id: number }) => c.id) as number[]
    expect(await ids(`partner_id=${other.partner.id}`)).toEqual([others])
    expect(await ids(`partner_id=${p.partner.id}&status=documents_pending`)).toEqual([second])
    expect(await ids(`partner_id=${p.partner.id}&status=open`)).toEqual(
      expect.arrayContaining([first, second]),
    )
    expect(await ids(`partner_id=${p.partner.id}&fraud=true`)).not.toContain(second)
    expect(await ids(`partner_id=${p.partner.id}&type=robbery`)).toEqual([])
    const page = (await get(`/api/claims?partner_id=${p.partner.id}&per_page=1&page=2`)).json()
    expect(page).toMatchObject({ current_page: 2, per_page: 1, data: [{ id: second }] })
    expect((await get('/api/claims?status=lost')).statusCode).toBe(422)
  })

  it('answers 401 without a session', async () => {
    const response = await consoleCtx.console.inject({ method: 'GET', url: '/api/claims' })
    expect(response.statusCode).toBe(401)
    expect(response.json()).toMatchObject({ code: 'unauthenticated' })
  })
})

describe('a claim’s page', () => {
  it('shows the contract, customer, device, timeline, documents and payable preview', async () => {
    const subscriptionId = await paidSubscription(ctx.app, p)
    const id = await claimOf(ctx.db, { subscriptionId }, 'documents_pending')
    const photo = png(0x33)
    const upload = async (kind: string, bytes: Buffer, name: string, type: string) => {
      const body = documentForm(kind, bytes, name, type)
      const uploaded = await ctx.app.inject({
        method: 'POST',
        url: `/claims/${id}/documents`,
        headers: { ...bearer(p.token), ...body.headers },
        payload: body.payload,
      })
      expect(uploaded.statusCode, uploaded.body).toBe(201)
      return uploaded.json().id as number
    }
    const documentId = await upload('photo', photo, 'tela.png', 'image/png')
    const invoiceId = await upload('invoice', pdf('Nota fiscal'), 'nota.pdf', 'application/pdf')

    const response = await get(`/api/claims/${id}`)
    expect(response.statusCode, response.body).toBe(200)
    const claim = response.json()
    expect(claim).toMatchObject({
      id,
      partner: { id: p.partner.id, name: expect.any(String) },
      contract: { kind: 'subscription', id: subscriptionId, status: 'pago', lmi_cents: 649_900 },
      customer: { id: p.customerId },
      device: { model: { name: 'Galaxy S25' } },
      fraud_signals: ['early_claim'],
      status: 'under_review',
      documents: [
        {
          id: documentId,
          kind: 'photo',
          content_type: 'image/png',
          url: `/api/claims/${id}/documents/${documentId}`,
        },
        { id: invoiceId, kind: 'invoice', content_type: 'application/pdf' },
      ],
      payable_preview: { lmi_cents: 649_900, franchise_cents: 97_485, payable_at_max_cents: 552_415 },
      decision: null,
    })
    const types = claim.timeline.map((e: { type: string }) => e.type)
    expect(types).toEqual(
      expect.arrayContaining(['subscription.created', 'installment.paid', 'subscription.activated']),
    )
    expect(types).toContain('claim.under_review')

    const bytes = await get(claim.documents[0].url)
    expect(bytes.statusCode).toBe(200)
    expect(bytes.rawPayload.equals(photo)).toBe(true)
    expect(bytes.headers).toMatchObject({
      'content-type': 'image/png',
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
    })
    // No document is ever a page: an attachment, sandboxed, unframable; a PDF as much as an image
    // (the console draws it with pdf.js, never in the browser's viewer).
    const invoice = claim.documents.find(
      (d: { content_type: string }) => d.content_type === 'application/pdf',
    )
    const invoiceBytes = await get(invoice.url)
    expect(invoiceBytes.headers['content-type']).toBe('application/pdf')
    for (const served of [bytes, invoiceBytes]) {
      const policy = String(served.headers['content-security-policy'])
      expect(policy).toMatch(/^sandbox;/)
      expect(policy).toContain("default-src 'none'")
      expect(policy).toContain("frame-ancestors 'none'")
      expect(String(served.headers['content-disposition'])).toMatch(/^attachment; filename="/)
      expect(served.headers['x-frame-options']).toBe('DENY')
      expect(served.headers['x-content-type-options']).toBe('nosniff')
    }
  })

  it('answers 404 for an unknown claim or document', async () => {
    expect((await get('/api/claims/999999')).statusCode).toBe(404)
    const id = await underReview()
    expect((await get(`/api/claims/${id}/documents/999999`)).statusCode).toBe(404)
  })

  it('shows a contract by its policy number and the id the partner’s API uses, its status in words', async () => {
    const annualPlanId = await paidAnnualPlan(ctx.app, p)
    const id = await claimOf(ctx.db, { annualPlanId })
    const claim = (await get(`/api/claims/${id}`)).json()
    expect(claim.contract).toMatchObject({
      kind: 'annual_plan',
      id: annualPlanId,
      policy_number: expect.stringMatching(/^AMP-\d{4}-\d{6}$/),
      status: 'paid',
      status_label: 'Pago',
      // The partner notified its payment.
      paid_with: 'external',
    })
    const subscriptionId = await paidSubscription(ctx.app, p)
    const onSubscription = (await get(`/api/claims/${await claimOf(ctx.db, { subscriptionId })}`)).json()
    expect(onSubscription.contract).toMatchObject({
      kind: 'subscription',
      id: subscriptionId,
      policy_number: expect.stringMatching(/^AMP-\d{4}-\d{6}$/),
      status_label: 'Pago',
    })
    expect(onSubscription.contract).not.toHaveProperty('number')
    expect(onSubscription.contract.paid_with).toBe('external')
    // Paid by card at the counter (an own-gateway partner): its first installment's way.
    const own = await claimParty(ctx.app, ctx.db, p.modelId, 'own')
    const byCard = await paidSubscription(ctx.app, own, undefined, 'card')
    const onCard = (await get(`/api/claims/${await claimOf(ctx.db, { subscriptionId: byCard })}`)).json()
    expect(onCard.contract).toMatchObject({ id: byCard, paid_with: 'card' })
    expect(claim.timeline.map((e: { type: string }) => e.type)).toContain('annual_plan.paid')
  })
})

describe('decisions', () => {
  it('approves and settles as an adjuster, each audited with before and after', async () => {
    const id = await underReview()
    const approved = await post(`/api/claims/${id}/approve`, {
      settlement_method: 'repair',
      approved_amount_cents: 150_010,
    })
    expect(approved.statusCode, approved.body).toBe(200)
    expect(approved.json()).toMatchObject({
      status: 'approved',
      decision: { outcome: 'approved', approved_amount_cents: 150_010, payable_amount_cents: 52_525 },
    })
    expect(approved.json().timeline.map((e: { type: string }) => e.type)).toContain('claim.approved')
    const settled = await post(`/api/claims/${id}/settle`, { reference: 'OS-2026-1' })
    expect(settled.statusCode, settled.body).toBe(200)
    expect(settled.json()).toMatchObject({ status: 'settled', settlement: { reference: 'OS-2026-1' } })

    const audit = await auditOf(id)
    expect(audit.map((a) => a.action)).toEqual(['claim.approve', 'claim.settle'])
    expect(JSON.parse(audit[0]?.before as string)).toMatchObject({ status: 'under_review' })
    expect(JSON.parse(audit[0]?.after as string)).toMatchObject({
      status: 'approved',
      approved_amount: 150_010,
    })
    expect(audit[0]?.actor_label).toMatch(/^adjuster-/)
  })

  it('denies with a reason and a note', async () => {
    const id = await underReview()
    const denied = await post(`/api/claims/${id}/deny`, { reason_code: 'not_covered', note: 'Uso indevido.' })
    expect(denied.statusCode, denied.body).toBe(200)
    expect(denied.json()).toMatchObject({
      status: 'denied',
      decision: { outcome: 'denied', reason_code: 'not_covered' },
    })
  })

  it('refuses a viewer (403), and invalid amounts (422), changing nothing', async () => {
    const id = await underReview()
    const refused = await post(
      `/api/claims/${id}/approve`,
      { settlement_method: 'repair', approved_amount_cents: 100_000 },
      viewer,
    )
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ code: 'forbidden' })
    const tooMuch = await post(`/api/claims/${id}/approve`, {
      settlement_method: 'repair',
      approved_amount_cents: 649_901,
    })
    expect(tooMuch.statusCode).toBe(422)
    expect((await get(`/api/claims/${id}`)).json().status).toBe('under_review')
    expect(await auditOf(id)).toEqual([])
  })

  it('of two adjusters deciding one claim at once, one wins and the other gets 409', async () => {
    const id = await underReview()
    const answers = await Promise.all([
      post(
        `/api/claims/${id}/approve`,
        { settlement_method: 'repair', approved_amount_cents: 200_000 },
        adjuster,
      ),
      post(`/api/claims/${id}/deny`, { reason_code: 'other', note: 'Duplicado.' }, secondAdjuster),
    ])
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409])
    const loser = answers.find((a) => a.statusCode === 409)
    expect(loser?.json()).toMatchObject({ code: 'decision_conflict' })
    expect(await auditOf(id)).toHaveLength(1)
  })

  it('answers 409 to a decision on a claim decided before (a stale screen)', async () => {
    const id = await underReview()
    expect((await post(`/api/claims/${id}/deny`, { reason_code: 'other', note: 'Não.' })).statusCode).toBe(
      200,
    )
    const late = await post(`/api/claims/${id}/approve`, {
      settlement_method: 'repair',
      approved_amount_cents: 100_000,
    })
    expect(late.statusCode).toBe(409)
  })
})
