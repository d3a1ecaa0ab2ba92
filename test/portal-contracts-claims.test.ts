import { describe, expect, it } from 'vitest'
import { customerBody } from './helpers/bodies.js'
import { documentForm, jpeg, pdf } from './helpers/claim-documents.js'
import {
  call,
  ctx,
  daysAfter,
  local,
  now,
  ok,
  openClaim,
  paidAnnualPlan,
  paidSubscription,
  type Seller,
  seller,
  theft,
  useClaimsWorld,
} from './helpers/claims-world.js'
import { PORTAL_ORIGIN, portalCookie, portalOver } from './helpers/portal.js'
import { createCustomer, login } from './helpers/world.js'

// Minhas proteções and Abrir sinistro on the insured's portal (README, Portal do segurado): a
// session sees its document's contracts under every partner and no other's; a claim it opens is
// the partner's, `opened_by: insured`, with its events.

useClaimsWorld()
const portalCtx = portalOver(() => ctx, { now: () => now })

/** A session of the document, signed in by the code the portal delivered. */
async function sessionOf(document: string): Promise<string> {
  const headers = { origin: PORTAL_ORIGIN }
  await portalCtx.portal.inject({ method: 'POST', url: '/api/session/code', payload: { document }, headers })
  const code = portalCtx.delivered.at(-1)?.code
  const answer = await portalCtx.portal.inject({
    method: 'POST',
    url: '/api/session',
    payload: { document, code },
    headers,
  })
  expect(answer.statusCode, answer.body).toBe(200)
  return portalCookie(answer.headers['set-cookie'])
}

const get = (cookie: string, url: string) =>
  portalCtx.portal.inject({ method: 'GET', url, headers: { cookie } })
const post = (cookie: string, url: string, payload: object) =>
  portalCtx.portal.inject({ method: 'POST', url, payload, headers: { cookie, origin: PORTAL_ORIGIN } })

/** The same person (document) as a customer of another partner. */
async function sameDocumentUnder(other: Seller, document: string): Promise<Seller> {
  const token = await login(ctx.app, other.partner)
  const customer = await createCustomer(ctx.app, token, { ...customerBody(), document })
  return { ...other, customer }
}

describe('Minhas proteções', { timeout: 120_000 }, () => {
  it('lists the document’s contracts under two partners, and none of another document', async () => {
    const a = await seller()
    const b = await sameDocumentUnder(await seller(), a.customer.document)
    const stranger = await seller()
    const subscription = await paidSubscription(a)
    const annual = await paidAnnualPlan(b)
    const foreign = await paidSubscription(stranger)

    const cookie = await sessionOf(a.customer.document)
    const answer = await get(cookie, '/api/contracts')
    expect(answer.statusCode, answer.body).toBe(200)
    const contracts = answer.json().data as { kind: string; id: number; partner: { name: string } }[]
    expect(contracts.map((c) => `${c.kind}:${c.id}`).sort()).toEqual(
      [`subscription:${subscription}`, `annual_plan:${annual}`].sort(),
    )
    expect(new Set(contracts.map((c) => c.partner.name)).size).toBe(2)
    const sub = answer.json().data.find((c: { kind: string }) => c.kind === 'subscription')
    expect(sub).toMatchObject({
      status: 'pago',
      status_label: 'Pago',
      can_claim: true,
      next_step: 'claim_if_needed',
      certificate_url: `/api/contracts/subscription/${subscription}/certificate`,
    })
    expect(sub.installments[0]).toMatchObject({ number: 1, status: 'paid', status_label: 'Pago' })
    expect(sub.plan.perils.map((p: { code: string }) => p.code)).toContain('robbery')

    const certificate = await get(cookie, sub.certificate_url)
    expect(certificate.statusCode).toBe(200)
    expect(certificate.headers['content-type']).toBe('application/pdf')
    // Another document's contract is not found, whichever partner it is under.
    expect((await get(cookie, `/api/contracts/subscription/${foreign}/certificate`)).statusCode).toBe(404)
    expect(JSON.stringify(answer.json())).not.toContain(stranger.customer.document)
  })
})

describe('Abrir sinistro', { timeout: 120_000 }, () => {
  it('opens a claim on the insured’s contract as the partner’s, opened_by insured, and takes documents', async () => {
    const a = await seller()
    const subscription = await paidSubscription(a)
    const cookie = await sessionOf(a.customer.document)

    const opened = await post(cookie, '/api/claims', theft(subscription))
    expect(opened.statusCode, opened.body).toBe(201)
    const claim = opened.json()
    expect(claim).toMatchObject({
      status: 'documents_pending',
      opened_by: 'insured',
      subscription_id: subscription,
    })

    // The partner sees it, and its event, with opened_by.
    const seen = await ok<{ opened_by: string }>(a, 'GET', `/claims/${claim.id}`)
    expect(seen.opened_by).toBe('insured')
    const events = await ok<{ data: { data: { object: { id: number; opened_by: string } } }[] }>(
      a,
      'GET',
      '/events?type=claim.opened',
    )
    expect(events.data.map((e) => e.data.object)).toContainEqual(
      expect.objectContaining({ id: claim.id, opened_by: 'insured' }),
    )

    // A photo and a PDF from the phone.
    const photo = documentForm('invoice', jpeg(), 'nota.jpg', 'image/jpeg')
    const report = documentForm('police_report', pdf(), 'bo.pdf', 'application/pdf')
    for (const upload of [photo, report]) {
      const answer = await portalCtx.portal.inject({
        method: 'POST',
        url: `/api/claims/${claim.id}/documents`,
        payload: upload.payload,
        headers: { ...upload.headers, cookie, origin: PORTAL_ORIGIN },
      })
      expect(answer.statusCode, answer.body).toBe(201)
    }
    const mine = await get(cookie, '/api/claims')
    expect(mine.statusCode).toBe(200)
    expect(mine.json().data[0]).toMatchObject({ id: claim.id, required_documents: ['imei_block'] })
    expect(mine.json().data[0].documents).toHaveLength(2)

    const audit = await ctx.db
      .selectFrom('audit_log')
      .select(['actor_label', 'action'])
      .where('record_id', '=', String(claim.id))
      .where('record_type', '=', 'claim')
      .execute()
    expect(audit).toEqual([
      { actor_label: `insured:${a.customer.id}`, action: 'portal.claim_open' },
      { actor_label: `insured:${a.customer.id}`, action: 'portal.claim_document' },
      { actor_label: `insured:${a.customer.id}`, action: 'portal.claim_document' },
    ])
  })

  it('keeps the partner API’s rules, and a claim the partner opens says opened_by partner', async () => {
    const a = await seller()
    const subscription = await paidSubscription(a)
    const cookie = await sessionOf(a.customer.document)
    const missing = await post(cookie, '/api/claims', theft(subscription, { police_report: null }))
    expect(missing.statusCode).toBe(422)
    expect(missing.json().errors).toHaveProperty(['police_report.number'])
    const byPartner = await openClaim(a, theft(subscription))
    expect((byPartner as unknown as { opened_by: string }).opened_by).toBe('partner')
    const again = await post(
      cookie,
      '/api/claims',
      theft(subscription, { occurred_at: local(daysAfter(-2)) }),
    )
    expect(again.statusCode).toBe(422)
    expect(again.json().code).toBe('invalid_state')
  })

  it('never reaches another document’s contract or claim, under any partner', async () => {
    const a = await seller()
    const b = await seller()
    const theirs = await paidSubscription(b)
    const theirClaim = await openClaim(b, theft(theirs))
    const cookie = await sessionOf(a.customer.document)
    expect((await post(cookie, '/api/claims', theft(theirs))).statusCode).toBe(404)
    expect((await get(cookie, `/api/claims/${theirClaim.id}`)).statusCode).toBe(404)
    const upload = documentForm('invoice', jpeg(), 'nota.jpg', 'image/jpeg')
    const answer = await portalCtx.portal.inject({
      method: 'POST',
      url: `/api/claims/${theirClaim.id}/documents`,
      payload: upload.payload,
      headers: { ...upload.headers, cookie, origin: PORTAL_ORIGIN },
    })
    expect(answer.statusCode).toBe(404)
    expect((await get(cookie, '/api/claims')).json().data).toEqual([])
    expect((await call(b, 'GET', `/claims/${theirClaim.id}`)).json().documents).toEqual([])
  })
})
