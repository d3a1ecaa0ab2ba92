import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { type ClaimParty, claimOf, claimParty, paidSubscription } from './helpers/claim-decisions-world.js'
import { documentForm, png } from './helpers/claim-documents.js'
import { type ConsoleHeaders, type ConsoleTestContext, createConsoleApp } from './helpers/console.js'
import { useTestApp } from './helpers/test-app.js'
import { bearer, seedCatalog } from './helpers/world.js'

// The claims desk's work (README, Operator console: Sinistros): assignment and the queue's "Meus
// sinistros" / "Sem responsável", internal notes, the activity feed with who and when, and what the
// loser of a decision race reads when it reloads the claim.

let consoleCtx: ConsoleTestContext
let p: ClaimParty
type Operator = { headers: ConsoleHeaders; id: number; email: string }
let viewer: Operator
let ana: Operator
let bruno: Operator
let admin: Operator

const ctx = useTestApp()
beforeAll(async () => {
  consoleCtx = await createConsoleApp({ over: () => ctx })
  await consoleCtx.console.ready()
  p = await claimParty(ctx.app, ctx.db, (await seedCatalog(ctx.db)).model('Galaxy S25').id)
  const operator = async (role: 'viewer' | 'adjuster' | 'admin', name: string): Promise<Operator> => {
    const email = `${name}-${Math.random().toString(36).slice(2, 8)}@amparo.test`
    const headers = await consoleCtx.loginAs(role, { email })
    const { id } = await ctx.db
      .selectFrom('operators')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow()
    return { headers, id, email }
  }
  viewer = await operator('viewer', 'vera')
  ana = await operator('adjuster', 'ana')
  bruno = await operator('adjuster', 'bruno')
  admin = await operator('admin', 'carla')
})
afterAll(async () => {
  await consoleCtx?.close()
})

const get = (url: string, who: Operator = viewer) =>
  consoleCtx.console.inject({ method: 'GET', url, headers: who.headers })
const post = (url: string, payload: object, who: Operator) =>
  consoleCtx.console.inject({ method: 'POST', url, headers: who.headers, payload })
const assign = (id: number, assignee_id: number | null, who: Operator) =>
  post(`/api/claims/${id}/assignee`, { assignee_id }, who)
const underReview = async () => claimOf(ctx.db, { subscriptionId: await paidSubscription(ctx.app, p) })
const queueIds = async (query: string, who: Operator) =>
  (await get(`/api/claims?partner_id=${p.partner.id}&per_page=100&${query}`, who))
    .json()
    .data.map((c: { id: number }) => c.id) as number[]

describe('assignment', () => {
  it('lets an adjuster take an unassigned claim, and shows it in the queue and on the page', async () => {
    const id = await underReview()
    const response = await assign(id, ana.id, ana)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json().assignee).toEqual({ id: ana.id, email: ana.email })
    const item = (await get(`/api/claims?partner_id=${p.partner.id}&per_page=100`))
      .json()
      .data.find((c: { id: number }) => c.id === id)
    expect(item.assignee).toEqual({ id: ana.id, email: ana.email })
  })

  it('refuses another adjuster taking it (403), and a viewer (403); an admin reassigns and releases', async () => {
    const id = await underReview()
    expect((await assign(id, ana.id, ana)).statusCode).toBe(200)
    const taken = await assign(id, bruno.id, bruno)
    expect(taken.statusCode, taken.body).toBe(403)
    expect(taken.json()).toMatchObject({ code: 'forbidden' })
    expect((await assign(id, null, bruno)).statusCode).toBe(403)
    expect((await assign(id, viewer.id, viewer)).statusCode).toBe(403)
    const moved = await assign(id, bruno.id, admin)
    expect(moved.statusCode, moved.body).toBe(200)
    expect(moved.json().assignee).toMatchObject({ id: bruno.id })
    expect((await assign(id, null, bruno)).json().assignee).toBeNull()
  })

  it('refuses an assignee who cannot hold claims (422 under assignee_id) and an unknown claim (404)', async () => {
    const id = await underReview()
    const refused = await assign(id, viewer.id, admin)
    expect(refused.statusCode, refused.body).toBe(422)
    expect(refused.json()).toMatchObject({ errors: { assignee_id: expect.any(Array) } })
    expect((await assign(id, 999_999, admin)).statusCode).toBe(422)
    expect((await assign(999_999, ana.id, ana)).statusCode).toBe(404)
  })

  it('filters the queue by "Meus sinistros" (assignee=me) and "Sem responsável" (assignee=none)', async () => {
    const mine = await underReview()
    const nobodys = await underReview()
    const brunos = await underReview()
    await assign(mine, ana.id, ana)
    await assign(brunos, bruno.id, bruno)
    const anaQueue = await queueIds('assignee=me', ana)
    expect(anaQueue).toContain(mine)
    expect(anaQueue).not.toContain(brunos)
    expect(anaQueue).not.toContain(nobodys)
    const unassigned = await queueIds('assignee=none', ana)
    expect(unassigned).toContain(nobodys)
    expect(unassigned).not.toContain(mine)
    expect(unassigned).not.toContain(brunos)
    expect((await get('/api/claims?assignee=someone')).statusCode).toBe(422)
  })
})

describe('internal notes', () => {
  it('appends a note with its author and time, trimmed; refuses an empty one or one over 2,000 characters', async () => {
    const id = await underReview()
    const response = await post(`/api/claims/${id}/notes`, { body: '  Cliente enviará o BO amanhã.  ' }, ana)
    expect(response.statusCode, response.body).toBe(201)
    expect(response.json()).toMatchObject({
      body: 'Cliente enviará o BO amanhã.',
      author: { id: ana.id, email: ana.email },
      created_at: expect.stringMatching(/Z$/),
    })
    for (const body of ['   ', 'x'.repeat(2001)]) {
      const refused = await post(`/api/claims/${id}/notes`, { body }, ana)
      expect(refused.statusCode, refused.body).toBe(422)
      expect(refused.json()).toMatchObject({ errors: { body: expect.any(Array) } })
    }
    expect((await post(`/api/claims/${id}/notes`, { body: 'x'.repeat(2000) }, ana)).statusCode).toBe(201)
    expect((await post(`/api/claims/${id}/notes`, { body: 'Olhei.' }, viewer)).statusCode).toBe(403)
    expect((await post('/api/claims/999999/notes', { body: 'Olhei.' }, ana)).statusCode).toBe(404)
  })

  it('cannot be changed or removed once written', async () => {
    const id = await underReview()
    await post(`/api/claims/${id}/notes`, { body: 'Primeira impressão: procede.' }, ana)
    await expect(
      retryingTransaction(ctx.db, (trx) =>
        trx.updateTable('claim_notes').set({ body: 'outra' }).where('claim_id', '=', id).execute(),
      ),
    ).rejects.toThrow(/append-only/)
    await expect(
      retryingTransaction(ctx.db, (trx) =>
        trx.deleteFrom('claim_notes').where('claim_id', '=', id).execute(),
      ),
    ).rejects.toThrow(/append-only/)
  })
})

describe('the activity feed', () => {
  it('shows opening, documents, request, assignment, note, approval and settlement, each with who and when', async () => {
    const id = await claimOf(
      ctx.db,
      { subscriptionId: await paidSubscription(ctx.app, p) },
      'documents_pending',
    )
    const upload = async (kind: string, seed: number) => {
      const body = documentForm(kind, png(seed), `${kind}.png`, 'image/png')
      const response = await ctx.app.inject({
        method: 'POST',
        url: `/claims/${id}/documents`,
        headers: { ...bearer(p.token), ...body.headers },
        payload: body.payload,
      })
      expect(response.statusCode, response.body).toBe(201)
    }
    await upload('photo', 0x51)
    await upload('invoice', 0x52)
    await assign(id, ana.id, ana)
    const asked = await post(
      `/api/claims/${id}/request-documents`,
      { kinds: ['repair_quote'], message: 'Envie o orçamento da assistência.' },
      ana,
    )
    expect(asked.statusCode, asked.body).toBe(200)
    await upload('repair_quote', 0x53)
    await post(`/api/claims/${id}/notes`, { body: 'Orçamento compatível com o dano.' }, ana)
    const approved = await post(
      `/api/claims/${id}/approve`,
      { settlement_method: 'repair', approved_amount_cents: 120_000 },
      ana,
    )
    expect(approved.statusCode, approved.body).toBe(200)
    const settled = await post(`/api/claims/${id}/settle`, { reference: 'OS-77' }, admin)
    expect(settled.statusCode, settled.body).toBe(200)

    const claim = (await get(`/api/claims/${id}`)).json()
    const partnerName = claim.partner.name
    expect(claim.activity.map((e: { kind: string; by: { label: string } }) => [e.kind, e.by.label])).toEqual([
      ['opened', partnerName],
      ['document_received', partnerName],
      ['document_received', partnerName],
      ['assigned', ana.email],
      ['documents_requested', ana.email],
      ['document_received', partnerName],
      ['note', ana.email],
      ['approved', ana.email],
      ['settled', admin.email],
    ])
    const entries = claim.activity as { kind: string; at: string }[]
    expect(entries.map((e) => e.at)).toEqual([...entries.map((e) => e.at)].sort())
    expect(claim.activity).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'documents_requested',
          kinds: ['repair_quote'],
          message: 'Envie o orçamento da assistência.',
        }),
        expect.objectContaining({
          kind: 'note',
          note: 'Orçamento compatível com o dano.',
          by: expect.objectContaining({ operator_id: ana.id }),
        }),
        expect.objectContaining({ kind: 'assigned', assignee: { id: ana.id, email: ana.email } }),
        expect.objectContaining({
          kind: 'document_received',
          document: expect.objectContaining({ kind: 'repair_quote' }),
        }),
      ]),
    )
    expect(claim.decision).toMatchObject({ outcome: 'approved', decided_by: ana.email })
    expect(claim.settlement).toMatchObject({ reference: 'OS-77', settled_by: admin.email })
  })
})

describe('a decision race', () => {
  it('answers the loser 409, and the claim it reloads says who decided what and when', async () => {
    const id = await underReview()
    const [first, second] = await Promise.all([
      post(`/api/claims/${id}/approve`, { settlement_method: 'repair', approved_amount_cents: 50_000 }, ana),
      post(`/api/claims/${id}/deny`, { reason_code: 'not_covered', note: 'Fora da cobertura.' }, bruno),
    ])
    const statuses = [first.statusCode, second.statusCode].sort()
    expect(statuses).toEqual([200, 409])
    const winner = first.statusCode === 200 ? ana : bruno
    const loser = first.statusCode === 200 ? second : first
    expect(loser.json()).toMatchObject({ code: 'decision_conflict' })
    const claim = (await get(`/api/claims/${id}`, winner === ana ? bruno : ana)).json()
    expect(claim.decision).toMatchObject({
      outcome: winner === ana ? 'approved' : 'denied',
      decided_by: winner.email,
      decided_at: expect.stringMatching(/Z$/),
    })
  })
})
