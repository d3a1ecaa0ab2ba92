import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { customerBody, subscriptionCard } from './helpers/bodies.js'
import { documentForm, jpeg, pdf } from './helpers/claim-documents.js'
import {
  at,
  type ClaimBody,
  call,
  ctx,
  daysAfter,
  local,
  now,
  ok,
  openClaim,
  paidAnnualPlan,
  paidSubscription,
  pro,
  type Seller,
  seller,
  useClaimsWorld,
} from './helpers/claims-world.js'
import { type ConsoleHeaders, type ConsoleTestContext, createConsoleApp } from './helpers/console.js'
import { bearer, createCustomer, login, partnerWithToken, seedPlans, TOTAL_12X } from './helpers/world.js'

// Each fraud signal with its evidence on the console's claim page (README, Operator console: the
// operator API behind the screens), and `reused_document`, raised at upload when the file's bytes
// are already on another customer's claim under any partner (README, Claim documents). The
// partner API shows neither, and nothing of another partner's claims.

useClaimsWorld()

let desk: ConsoleTestContext
let viewer: ConsoleHeaders
beforeAll(async () => {
  desk = await createConsoleApp({ over: () => ctx, clock: { now: () => now } })
  await desk.console.ready()
  viewer = await desk.loginAs('viewer')
})
afterAll(async () => {
  await desk?.close()
})

interface EvidenceClaim {
  id: number
  number: string
  partner: { id: number; name: string }
  contract: { kind: string; id: number; policy_number: string | null }
  customer_name: string
  document: { id: number; kind: string; filename: string; own_id: number; own_filename: string } | null
}
interface Evidence {
  signal: string
  label: string
  claims: EvidenceClaim[]
  card_changed_at: string | null
  coverage_started_at: string | null
}
interface DeskClaim {
  fraud_signals: string[]
  fraud_evidence: Evidence[]
}

async function deskClaim(id: number): Promise<DeskClaim> {
  const response = await desk.console.inject({ method: 'GET', url: `/api/claims/${id}`, headers: viewer })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}

/** A damage claim on a contract paid 40 days ago (no early_claim), the loss yesterday. */
async function damageClaim(s: Seller, subscriptionId?: number): Promise<ClaimBody> {
  return openClaim(s, {
    subscription_id: subscriptionId ?? (await paidSubscription(s, { paidAt: daysAfter(-40) })),
    type: 'accidental_damage',
    occurred_at: local(daysAfter(-1)),
    description: 'A tela quebrou após uma queda na calçada.',
  })
}

async function upload(s: Seller, claimId: number, kind: string, bytes: Buffer, name: string) {
  const type = name.endsWith('.pdf') ? 'application/pdf' : 'image/jpeg'
  const body = documentForm(kind, bytes, name, type)
  const response = await call(s, 'POST', `/claims/${claimId}/documents`, body.payload, body.headers)
  expect(response.statusCode, response.body).toBe(201)
  return response.json() as { id: number; sha256: string }
}

const signalsOf = async (id: number) => (await deskClaim(id)).fraud_signals

describe('reused_document', () => {
  it('marks the second of two customers’ claims, under two partners, sent the same JPEG', async () => {
    const first = await seller()
    const second = await seller()
    const photo = jpeg(`mesma-foto-${process.pid}-${Date.now()}`)
    const earlier = await damageClaim(first)
    const original = await upload(first, earlier.id, 'photo', photo, 'tela.jpg')
    expect(await signalsOf(earlier.id)).not.toContain('reused_document')

    const later = await damageClaim(second)
    const copy = await upload(second, later.id, 'photo', photo, 'foto-da-tela.jpg')
    expect(copy.sha256).toBe(original.sha256)
    // Another file on the same claim changes nothing: raised once.
    await upload(second, later.id, 'invoice', pdf(`Nota ${later.id}`), 'nota.pdf')

    const claim = await deskClaim(later.id)
    expect(claim.fraud_signals).toEqual(['reused_document'])
    const earlierContract = (await ok<{ subscription_id: number }>(first, 'GET', `/claims/${earlier.id}`))
      .subscription_id
    const earlierPolicy = (
      await ok<{ policy_number: string }>(first, 'GET', `/subscriptions/${earlierContract}`)
    ).policy_number
    expect(claim.fraud_evidence).toEqual([
      {
        signal: 'reused_document',
        label: 'Documento já enviado em sinistro de outro cliente',
        claims: [
          expect.objectContaining({
            id: earlier.id,
            number: earlier.number,
            partner: { id: first.partner.id, name: expect.any(String) },
            contract: { kind: 'subscription', id: earlierContract, policy_number: earlierPolicy },
            customer_name: earlier.customer.name,
            document: {
              id: original.id,
              kind: 'photo',
              filename: 'tela.jpg',
              own_id: copy.id,
              own_filename: 'foto-da-tela.jpg',
            },
          }),
        ],
        card_changed_at: null,
        coverage_started_at: null,
      },
    ])
    expect(earlierPolicy).toMatch(/^AMP-\d{4}-\d{6}$/)
    // The first claim, whose file was there first, stays unmarked.
    expect(await deskClaim(earlier.id)).toMatchObject({ fraud_signals: [], fraud_evidence: [] })
  })

  it('is not raised by the same customer sending the same file again, under any partner', async () => {
    const s = await seller()
    const photo = jpeg(`minha-foto-${process.pid}-${Date.now()}`)
    const one = await damageClaim(s)
    await upload(s, one.id, 'photo', photo, 'tela.jpg')
    await upload(s, one.id, 'other', photo, 'tela-de-novo.jpg')
    const two = await damageClaim(s)
    await upload(s, two.id, 'photo', photo, 'tela.jpg')

    // The same person (her CPF) as another partner's customer.
    const { partner, token } = await partnerWithToken(ctx.app, ctx.db, 'external')
    const [plan] = await seedPlans(ctx.db, partner.id, [TOTAL_12X])
    const customer = await createCustomer(ctx.app, token, {
      ...customerBody(),
      document: s.customer.document,
    })
    const elsewhere: Seller = {
      partner,
      plans: { total: plan?.id as number, essencial: 0, annual: 0 },
      customer,
    }
    const three = await damageClaim(elsewhere)
    await upload(elsewhere, three.id, 'photo', photo, 'tela.jpg')

    for (const claim of [one, two, three]) {
      expect(await signalsOf(claim.id), claim.number).not.toContain('reused_document')
    }
  })

  it('shows a partner nothing of it, nor of the other partner’s claim', async () => {
    const first = await seller()
    const second = await seller()
    const photo = jpeg(`vazamento-${process.pid}-${Date.now()}`)
    const earlier = await damageClaim(first)
    const original = await upload(first, earlier.id, 'photo', photo, 'tela.jpg')
    const later = await damageClaim(second)
    const body = documentForm('photo', photo, 'tela.jpg', 'image/jpeg')
    const uploaded = await call(second, 'POST', `/claims/${later.id}/documents`, body.payload, body.headers)
    expect(uploaded.statusCode).toBe(201)
    expect(Object.keys(uploaded.json()).sort()).toEqual(
      ['content_type', 'filename', 'id', 'kind', 'sha256', 'size', 'uploaded_at'].sort(),
    )
    expect(await signalsOf(later.id)).toEqual(['reused_document'])

    const seen = [
      (await call(second, 'GET', `/claims/${later.id}`)).body,
      (await call(second, 'GET', '/claims')).body,
      (await call(second, 'GET', '/events?limit=100')).body,
    ]
    for (const text of seen) {
      expect(text).not.toContain('reused_document')
      expect(text).not.toContain('fraud')
      expect(text).not.toContain(earlier.number)
    }
    expect((await call(second, 'GET', `/claims/${earlier.id}`)).statusCode).toBe(404)
    expect((await call(second, 'GET', `/claims/${earlier.id}/documents/${original.id}`)).statusCode).toBe(404)
  })
})

describe('the evidence of the opening’s signals', () => {
  it('names the device’s and the customer’s other claims, and when the cover started', async () => {
    const s = await seller()
    const paidAt = daysAfter(-5)
    const sub = await paidSubscription(s, { paidAt })
    const first = await damageClaim(s, sub)
    await ok(s, 'POST', `/claims/${first.id}/withdraw`)
    const second = await damageClaim(s, sub)
    await ok(s, 'POST', `/claims/${second.id}/withdraw`)
    const third = await openClaim(s, {
      annual_plan_id: await paidAnnualPlan(s),
      type: 'accidental_damage',
      occurred_at: local(daysAfter(-1)),
      description: 'Tela quebrada após queda.',
    })

    const ids = (e: Evidence | undefined) => e?.claims.map((c) => c.id)
    const onSecond = await deskClaim(second.id)
    expect(onSecond.fraud_signals).toEqual(['early_claim', 'repeat_device'])
    const [early, device] = onSecond.fraud_evidence
    expect(early).toMatchObject({ signal: 'early_claim', claims: [], coverage_started_at: paidAt })
    expect(device).toMatchObject({ signal: 'repeat_device', label: 'Aparelho com outro sinistro (24 meses)' })
    // Only the claims there at its opening: not the third, opened since.
    expect(ids(device)).toEqual([first.id])
    expect(device?.claims[0]).toMatchObject({
      number: first.number,
      partner: { id: s.partner.id },
      contract: { kind: 'subscription', id: sub },
      document: null,
    })

    const onThird = await deskClaim(third.id)
    expect(onThird.fraud_signals).toEqual(['repeat_customer'])
    expect(ids(onThird.fraud_evidence[0])).toEqual([second.id, first.id])
    expect(await deskClaim(first.id)).toMatchObject({
      fraud_signals: ['early_claim'],
      fraud_evidence: [{ signal: 'early_claim', claims: [], coverage_started_at: paidAt }],
    })
  })

  it('gives the time of a card replaced days before the loss', async () => {
    const { partner } = await partnerWithToken(ctx.app, ctx.db, 'own')
    const [plan] = await seedPlans(ctx.db, partner.id, [TOTAL_12X])
    const token = await login(ctx.app, partner)
    const customer = await createCustomer(ctx.app, token, customerBody())
    const s: Seller = { partner, plans: { total: plan?.id as number, essencial: 0, annual: 0 }, customer }
    const sub = await at(daysAfter(-60), async () => {
      const { id } = await ok<{ id: number }>(
        s,
        'POST',
        '/subscriptions',
        { plan_id: plan?.id, customer_id: customer.id, model_id: pro },
        201,
      )
      await ok(s, 'POST', `/subscriptions/${id}/payment`, subscriptionCard)
      return id
    })
    const changedAt = daysAfter(-3)
    const replaced = await at(changedAt, async () =>
      ctx.app.inject({
        method: 'PUT',
        url: `/subscriptions/${sub}/card`,
        headers: bearer(await login(ctx.app, partner)),
        payload: subscriptionCard,
      }),
    )
    expect(replaced.statusCode, replaced.body).toBe(200)
    const claim = await damageClaim(s, sub)
    expect(await deskClaim(claim.id)).toMatchObject({
      fraud_signals: ['recent_card_change'],
      fraud_evidence: [{ signal: 'recent_card_change', claims: [], card_changed_at: changedAt }],
    })
  })
})
