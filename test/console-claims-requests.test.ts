import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ClaimParty,
  claimOf,
  claimParty,
  eventsOf,
  paidSubscription,
} from './helpers/claim-decisions-world.js'
import { documentForm, pdf, png } from './helpers/claim-documents.js'
import { type ConsoleHeaders, type ConsoleTestContext, createConsoleApp } from './helpers/console.js'
import { useTestApp } from './helpers/test-app.js'
import { bearer, seedCatalog } from './helpers/world.js'

// An adjuster asks for documents on a claim under review (README, Operator console: Sinistros): the
// claim awaits them, the partner sees the request on the claim and in its event, and its uploads
// bring the claim back to review.

let consoleCtx: ConsoleTestContext
let p: ClaimParty
let viewer: ConsoleHeaders
let adjuster: ConsoleHeaders

const ctx = useTestApp()
beforeAll(async () => {
  consoleCtx = await createConsoleApp({ over: () => ctx })
  await consoleCtx.console.ready()
  p = await claimParty(ctx.app, ctx.db, (await seedCatalog(ctx.db)).model('Galaxy S25').id)
  viewer = await consoleCtx.loginAs('viewer')
  adjuster = await consoleCtx.loginAs('adjuster')
})
afterAll(async () => {
  await consoleCtx?.close()
})

const ask = (id: number, payload: object, headers: ConsoleHeaders = adjuster) =>
  consoleCtx.console.inject({ method: 'POST', url: `/api/claims/${id}/request-documents`, headers, payload })
const partnerClaim = async (id: number) =>
  (await ctx.app.inject({ method: 'GET', url: `/claims/${id}`, headers: bearer(p.token) })).json()
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
/** A damage claim whose photo and invoice arrived: under review. */
async function reviewedClaim() {
  const id = await claimOf(
    ctx.db,
    { subscriptionId: await paidSubscription(ctx.app, p) },
    'documents_pending',
  )
  await upload(id, 'photo', png(0x41))
  await upload(id, 'invoice')
  expect((await partnerClaim(id)).status).toBe('under_review')
  return id
}

const MESSAGE = 'A nota fiscal está ilegível; envie outra cópia e o orçamento do reparo.'

describe('requesting documents', () => {
  it('awaits the kinds asked for, shows the request to the partner, and reviews again once they arrive', async () => {
    const id = await reviewedClaim()
    const response = await ask(id, { kinds: ['invoice', 'repair_quote'], message: `  ${MESSAGE} ` })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({
      status: 'documents_pending',
      required_documents: ['invoice', 'repair_quote'],
      documents_request: { kinds: ['invoice', 'repair_quote'], message: MESSAGE },
    })

    const claim = await partnerClaim(id)
    expect(claim).toMatchObject({
      status: 'documents_pending',
      status_label: 'Aguardando documentos',
      required_documents: ['invoice', 'repair_quote'],
      documents_request: { kinds: ['invoice', 'repair_quote'], message: MESSAGE },
    })
    expect(claim.documents_request.requested_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
    const [event] = await eventsOf(ctx.db, 'claim.documents_requested', id)
    expect(JSON.parse(event?.data ?? '{}')).toMatchObject({
      status: 'documents_pending',
      documents_request: { kinds: ['invoice', 'repair_quote'], message: MESSAGE },
    })

    await upload(id, 'invoice')
    expect(await partnerClaim(id)).toMatchObject({
      status: 'documents_pending',
      required_documents: ['repair_quote'],
    })
    expect(await eventsOf(ctx.db, 'claim.under_review', id)).toHaveLength(1)
    await upload(id, 'repair_quote')
    expect(await partnerClaim(id)).toMatchObject({
      status: 'under_review',
      required_documents: [],
      documents_request: { kinds: ['invoice', 'repair_quote'] },
    })
    expect(await eventsOf(ctx.db, 'claim.under_review', id)).toHaveLength(2)
  })

  it('is audited as the operator’s action', async () => {
    const id = await reviewedClaim()
    expect((await ask(id, { kinds: ['photo'], message: 'Envie uma foto da tela.' })).statusCode).toBe(200)
    const [entry] = await consoleCtx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('record_type', '=', 'claim')
      .where('record_id', '=', String(id))
      .execute()
    expect(entry).toMatchObject({ action: 'claim.request_documents', ip: expect.any(String) })
    expect(JSON.parse(entry?.before ?? '{}')).toMatchObject({
      status: 'under_review',
      documents_request: null,
    })
    expect(JSON.parse(entry?.after ?? '{}')).toMatchObject({
      status: 'documents_pending',
      documents_request: { kinds: ['photo'], message: 'Envie uma foto da tela.' },
    })
  })

  it('refuses no kind, an unknown kind, and a message under 10 or over 500 characters (422, nothing changed)', async () => {
    const id = await reviewedClaim()
    const cases: [object, string][] = [
      [{ kinds: [], message: MESSAGE }, 'kinds'],
      [{ kinds: ['passport'], message: MESSAGE }, 'kinds'],
      [{ kinds: ['invoice'], message: ' curta    ' }, 'message'],
      [{ kinds: ['invoice'], message: 'x'.repeat(501) }, 'message'],
    ]
    for (const [payload, field] of cases) {
      const response = await ask(id, payload)
      expect(response.statusCode, response.body).toBe(422)
      expect(response.json()).toMatchObject({
        code: 'validation_failed',
        errors: { [field]: expect.any(Array) },
      })
    }
    expect(await partnerClaim(id)).toMatchObject({ status: 'under_review', documents_request: null })
  })

  it('answers 409 on a claim not under review, and 403 to a viewer', async () => {
    const pending = await claimOf(
      ctx.db,
      { subscriptionId: await paidSubscription(ctx.app, p) },
      'documents_pending',
    )
    const conflict = await ask(pending, { kinds: ['photo'], message: MESSAGE })
    expect(conflict.statusCode, conflict.body).toBe(409)
    expect(conflict.json()).toMatchObject({ code: 'decision_conflict' })
    const id = await reviewedClaim()
    expect((await ask(id, { kinds: ['photo'], message: MESSAGE }, viewer)).statusCode).toBe(403)
    expect((await ask(404_404, { kinds: ['photo'], message: MESSAGE })).statusCode).toBe(404)
  })
})
