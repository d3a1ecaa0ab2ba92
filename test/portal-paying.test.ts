import { beforeAll, describe, expect, it } from 'vitest'
import { APPROVES_ONCE } from '../src/modules/payments/sandbox-gateway.js'
import type { Clock } from '../src/shared/time.js'
import { customerBody, subscriptionCard, uniqueImei } from './helpers/bodies.js'
import { PORTAL_ORIGIN, portalCookie, portalOver } from './helpers/portal.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, galaxyOf, type Seller, seller, send } from './helpers/world.js'

// Paying from the insured's portal (README, Portal do segurado): the partner API's card update,
// first payment and PIX codes on an own-gateway contract of the insured's document, through the
// portal's HTTP API, each change audited as the insured's.

const START = new Date('2026-11-21T15:00:00.000Z')
const DAY = 86_400_000
let now = START
const clock: Clock = { now: () => now }
const ctx = useTestApp(() => ({ clock }))
const portalCtx = portalOver(() => ctx, clock)

let modelId = 0
beforeAll(async () => {
  modelId = await galaxyOf(ctx)
})

const card = (number: string) => ({ creditCard: { ...subscriptionCard.creditCard, number } })

/** A seller of the gateway mode whose customer has a document of its own. */
const sellerOf = (gateway: 'own' | 'external') => seller(ctx, { partner: gateway, customer: customerBody() })

async function documentOf(s: Seller): Promise<string> {
  const row = await ctx.db
    .selectFrom('customers')
    .select('document')
    .where('id', '=', s.customerId)
    .executeTakeFirstOrThrow()
  return row.document
}

async function sessionOf(s: Seller): Promise<string> {
  const document = await documentOf(s)
  const headers = { origin: PORTAL_ORIGIN }
  await portalCtx.portal.inject({ method: 'POST', url: '/api/session/code', payload: { document }, headers })
  const code = portalCtx.delivered.at(-1)?.code
  const signedIn = await portalCtx.portal.inject({
    method: 'POST',
    url: '/api/session',
    payload: { document, code },
    headers,
  })
  expect(signedIn.statusCode, signedIn.body).toBe(200)
  return portalCookie(signedIn.headers['set-cookie'])
}

const portal = (cookie: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  portalCtx.portal.inject({
    method,
    url,
    headers: { cookie, origin: PORTAL_ORIGIN },
    ...(payload && { payload }),
  })

async function subscribe(s: Seller): Promise<number> {
  const body = { plan_id: s.planId, customer_id: s.customerId, model_id: modelId }
  return (await answer(ctx, s, 'POST', '/subscriptions', body, 201)).id
}

const installmentsOf = async (s: Seller, id: number) =>
  (await answer(ctx, s, 'GET', `/subscriptions/${id}/installments`)) as {
    id: number
    number: number
    status: string
    paid_with?: string
  }[]

async function auditOf(kind: string, id: number) {
  return ctx.db
    .selectFrom('audit_log')
    .select(['actor_label', 'action', 'after'])
    .where('record_type', '=', kind)
    .where('record_id', '=', String(id))
    .orderBy('id')
    .execute()
}

/** A subscription in force whose installment 2 is overdue: paid by card 40 days ago, the recurrence never run. */
async function overdueSubscription(s: Seller): Promise<number> {
  now = new Date(START.getTime() - 40 * DAY)
  s.token = await s.login()
  try {
    const id = await subscribe(s)
    await answer(ctx, s, 'POST', `/subscriptions/${id}/payment`, card(APPROVES_ONCE))
    return id
  } finally {
    now = START
    s.token = await s.login()
  }
}

describe('paying from the portal', { timeout: 120_000 }, () => {
  it('replaces the card of a subscription in force, audited as the insured’s; a declined card → 402, the old one stays', async () => {
    now = START
    const s = await sellerOf('own')
    const id = await subscribe(s)
    await answer(ctx, s, 'POST', `/subscriptions/${id}/payment`, subscriptionCard)
    const cookie = await sessionOf(s)

    const listed = await portal(cookie, 'GET', '/api/contracts')
    expect(listed.json().data[0]).toMatchObject({
      id,
      paying: { own_gateway: true, replace_card: true, pay_by_card: false, pix: false },
    })

    const declined = await portal(
      cookie,
      'PUT',
      `/api/contracts/subscription/${id}/card`,
      card('4000000000000002'),
    )
    expect(declined.statusCode, declined.body).toBe(402)
    expect(declined.json().code).toBe('card_declined')
    expect(declined.body).not.toContain('4000000000000002')
    const kept = await answer(ctx, s, 'GET', `/subscriptions/${id}`)

    const replaced = await portal(
      cookie,
      'PUT',
      `/api/contracts/subscription/${id}/card`,
      card('5555555555554444'),
    )
    expect(replaced.statusCode, replaced.body).toBe(200)
    expect(replaced.json()).toMatchObject({ kind: 'subscription', id, status: 'pago' })
    const after = await answer(ctx, s, 'GET', `/subscriptions/${id}`)
    expect(after.card).not.toEqual(kept.card)
    expect(after.card).toMatchObject({ last4: '4444' })

    const audit = await auditOf('subscription', id)
    expect(audit.map((a) => [a.actor_label, a.action])).toEqual([
      [`insured:${s.customerId}`, 'portal.card_update'],
      [`insured:${s.customerId}`, 'portal.card_update'],
    ])
    expect(JSON.parse(String(audit[1]?.after))).toEqual({ outcome: 'approved' })
    expect(JSON.stringify(audit)).not.toMatch(/5555555555554444|4000000000000002/)

    // A bad card number is the partner API's 422, naming the field.
    const bad = await portal(
      cookie,
      'PUT',
      `/api/contracts/subscription/${id}/card`,
      card('4111111111111112'),
    )
    expect(bad.statusCode).toBe(422)
    expect(Object.keys(bad.json().errors)).toEqual(['creditCard.number'])
  })

  it('pays installment 1 declined before, then an overdue one, by card', async () => {
    now = START
    const s = await sellerOf('own')
    const pending = await subscribe(s)
    await send(ctx, s, 'POST', `/subscriptions/${pending}/payment`, card('4000000000000002'))
    const cookie = await sessionOf(s)
    const listed = (await portal(cookie, 'GET', '/api/contracts')).json().data
    const first = listed.find((c: { id: number }) => c.id === pending)
    expect(first.paying).toMatchObject({ replace_card: false, pay_by_card: true, pix: true })
    expect(first.installments[0]).toMatchObject({ number: 1, status: 'refused', payable: true })

    const paid = await portal(
      cookie,
      'POST',
      `/api/contracts/subscription/${pending}/payment`,
      subscriptionCard,
    )
    expect(paid.statusCode, paid.body).toBe(200)
    expect(paid.json()).toMatchObject({ id: pending, status: 'pago' })
    // Nothing is due any more.
    const again = await portal(
      cookie,
      'POST',
      `/api/contracts/subscription/${pending}/payment`,
      subscriptionCard,
    )
    expect(again.statusCode).toBe(422)
    expect(again.json().code).toBe('invalid_state')

    const overdue = await overdueSubscription(s)
    const view = (await portal(cookie, 'GET', '/api/contracts'))
      .json()
      .data.find((c: { id: number }) => c.id === overdue)
    expect(view.installments[1]).toMatchObject({ number: 2, overdue: true, payable: true })
    const declined = await portal(
      cookie,
      'POST',
      `/api/contracts/subscription/${overdue}/payment`,
      card('4000000000009995'),
    )
    expect(declined.statusCode, declined.body).toBe(402)
    const settled = await portal(
      cookie,
      'POST',
      `/api/contracts/subscription/${overdue}/payment`,
      subscriptionCard,
    )
    expect(settled.statusCode, settled.body).toBe(200)
    const [, second] = await installmentsOf(s, overdue)
    expect(second).toMatchObject({ status: 'paid', paid_with: 'card' })
    expect(settled.json().installments[1]).toMatchObject({ status: 'paid', payable: false })
    expect((await auditOf('subscription', pending)).map((a) => [a.actor_label, a.action])).toEqual([
      [`insured:${s.customerId}`, 'portal.pay_by_card'],
    ])
    expect((await auditOf('subscription', overdue)).map((a) => a.action)).toEqual([
      'portal.pay_by_card',
      'portal.pay_by_card',
    ])
  })

  it('answers a PIX code for an installment with its QR image on the portal; paid by the sandbox, it reads paid', async () => {
    now = START
    const s = await sellerOf('own')
    const id = await subscribe(s)
    const [first] = await installmentsOf(s, id)
    const cookie = await sessionOf(s)
    const url = `/api/contracts/subscription/${id}/installments/${first?.id}/pix`
    const made = await portal(cookie, 'POST', url)
    expect(made.statusCode, made.body).toBe(201)
    const code = made.json()
    expect(code).toEqual({
      id: expect.any(Number),
      status: 'pending',
      amount: expect.any(Number),
      qr_code: expect.stringMatching(/^000201/),
      qr_code_png: expect.stringMatching(/^\/api\/pix\/[A-Za-z0-9_-]+\.png$/),
      expires_at: '2026-11-21 13:00:00',
    })
    // At most one pending code: the same one again.
    const same = await portal(cookie, 'POST', url)
    expect(same.statusCode).toBe(200)
    expect(same.json()).toEqual(code)
    const png = await portal(cookie, 'GET', code.qr_code_png)
    expect(png.statusCode).toBe(200)
    expect(png.headers['content-type']).toBe('image/png')

    await answer(ctx, s, 'POST', `/sandbox/payments/${code.id}/pay`)
    const read = await portal(cookie, 'GET', `/api/pix-codes/${code.id}`)
    expect(read.json()).toMatchObject({ id: code.id, status: 'paid' })
    expect((await installmentsOf(s, id))[0]).toMatchObject({ status: 'paid', paid_with: 'pix' })
    // Already paid → 422.
    const paid = await portal(cookie, 'POST', url)
    expect(paid.statusCode).toBe(422)
    expect(paid.json().code).toBe('invalid_state')
    const audit = await auditOf('subscription', id)
    expect(audit.map((a) => [a.actor_label, a.action])).toEqual([
      [`insured:${s.customerId}`, 'portal.pix_request'],
    ])
  })

  it('a PIX code for an annual plan expires, reads expired, and a new one may be asked for', async () => {
    now = START
    const s = await sellerOf('own')
    const plan = await answer(
      ctx,
      s,
      'POST',
      '/annual-plans',
      { model_id: modelId, customer_id: s.customerId, imei: uniqueImei() },
      201,
    )
    const cookie = await sessionOf(s)
    const listed = (await portal(cookie, 'GET', '/api/contracts')).json().data
    expect(listed.find((c: { id: number; kind: string }) => c.kind === 'annual_plan')?.paying.pix).toBe(true)
    const url = `/api/contracts/annual_plan/${plan.id}/pix`
    const old = (await portal(cookie, 'POST', url)).json()
    expect(old.status).toBe('pending')
    now = new Date(START.getTime() + 61 * 60_000)
    const cookieLater = await sessionOf(s)
    expect((await portal(cookieLater, 'GET', `/api/pix-codes/${old.id}`)).json().status).toBe('expired')
    const fresh = await portal(cookieLater, 'POST', url)
    expect(fresh.statusCode).toBe(201)
    expect(fresh.json().id).not.toBe(old.id)
    now = START
    const audit = await auditOf('annual_plan', plan.id)
    expect(audit.map((a) => a.action)).toEqual(['portal.pix_request', 'portal.pix_request'])
  })

  it('refuses an external-gateway contract, another document’s, and another’s PIX code, changing nothing', async () => {
    now = START
    const external = await sellerOf('external')
    const own = await sellerOf('own')
    const stranger = await sellerOf('own')
    const mine = await subscribe(external)
    const [mineFirst] = await installmentsOf(external, mine)
    const theirs = await subscribe(stranger)
    const [theirFirst] = await installmentsOf(stranger, theirs)
    const theirCode = await answer(
      ctx,
      stranger,
      'POST',
      `/subscriptions/${theirs}/installments/${theirFirst?.id}/pix`,
      undefined,
      201,
    )
    const cookie = await sessionOf(external)
    const listed = (await portal(cookie, 'GET', '/api/contracts')).json().data
    expect(listed[0].paying).toEqual({
      own_gateway: false,
      replace_card: false,
      pay_by_card: false,
      pix: false,
    })

    const wrong = await portal(
      cookie,
      'POST',
      `/api/contracts/subscription/${mine}/payment`,
      subscriptionCard,
    )
    expect(wrong.statusCode).toBe(422)
    expect(wrong.json().code).toBe('wrong_gateway')
    const wrongPix = await portal(
      cookie,
      'POST',
      `/api/contracts/subscription/${mine}/installments/${mineFirst?.id}/pix`,
    )
    expect(wrongPix.json().code).toBe('wrong_gateway')

    const ownCookie = await sessionOf(own)
    for (const [method, url, body] of [
      ['PUT', `/api/contracts/subscription/${theirs}/card`, subscriptionCard],
      ['POST', `/api/contracts/subscription/${theirs}/payment`, subscriptionCard],
      ['POST', `/api/contracts/subscription/${theirs}/installments/${theirFirst?.id}/pix`, undefined],
      ['GET', `/api/pix-codes/${theirCode.id}`, undefined],
    ] as const) {
      const refused = await portal(ownCookie, method, url, body)
      expect(refused.statusCode, `${method} ${url}`).toBe(404)
    }
    // Another origin's write is refused before anything runs.
    const foreign = await portalCtx.portal.inject({
      method: 'POST',
      url: `/api/contracts/subscription/${theirs}/payment`,
      headers: { cookie: ownCookie, origin: 'https://elsewhere.example' },
      payload: subscriptionCard,
    })
    expect(foreign.statusCode).toBe(403)
    expect((await installmentsOf(stranger, theirs))[0]?.status).toBe('pending')
    expect(await auditOf('subscription', theirs)).toEqual([])
  })
})
