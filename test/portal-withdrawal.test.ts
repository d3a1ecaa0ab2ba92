import { describe, expect, it } from 'vitest'
import {
  ctx,
  daysAfter,
  now,
  ok,
  paidAnnualPlan,
  paidSubscription,
  seller,
  useClaimsWorld,
} from './helpers/claims-world.js'
import { PORTAL_ORIGIN, portalCookie, portalOver } from './helpers/portal.js'

// Arrependimento on the insured's portal (README, Portal do segurado): within 7 days of contracting
// the insured withdraws; the partner's cancellation runs, its events fire, the insured is the actor.

useClaimsWorld()
const portalCtx = portalOver(() => ctx, { now: () => now })

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

const withdraw = (cookie: string, kind: string, id: number) =>
  portalCtx.portal.inject({
    method: 'POST',
    url: `/api/contracts/${kind}/${id}/withdraw`,
    headers: { cookie, origin: PORTAL_ORIGIN },
  })

type Events = { data: { data: { object: { id: number } } }[] }

async function auditOf(kind: string, id: number) {
  return ctx.db
    .selectFrom('audit_log')
    .select(['actor_label', 'action'])
    .where('record_type', '=', kind)
    .where('record_id', '=', String(id))
    .execute()
}

describe('Arrependimento', { timeout: 120_000 }, () => {
  it('cancels a subscription contracted 2 days ago, with the partner’s event, audited as the insured’s', async () => {
    const a = await seller()
    const subscription = await paidSubscription(a, { paidAt: daysAfter(-2) })
    const cookie = await sessionOf(a.customer.document)
    const listed = await portalCtx.portal.inject({
      method: 'GET',
      url: '/api/contracts',
      headers: { cookie },
    })
    expect(listed.json().data[0]).toMatchObject({ id: subscription, can_withdraw: true })

    const answer = await withdraw(cookie, 'subscription', subscription)
    expect(answer.statusCode, answer.body).toBe(200)
    expect(answer.json()).toMatchObject({ kind: 'subscription', id: subscription, status: 'canceled' })

    const seen = await ok<{ status: string; cancellation: { reason: string } }>(
      a,
      'GET',
      `/subscriptions/${subscription}`,
    )
    expect(seen).toMatchObject({ status: 'canceled', cancellation: { reason: 'insured_withdrawal' } })
    const events = await ok<Events>(a, 'GET', '/events?type=subscription.canceled')
    expect(events.data.map((e) => e.data.object.id)).toContain(subscription)
    expect(await auditOf('subscription', subscription)).toEqual([
      { actor_label: `insured:${a.customer.id}`, action: 'portal.withdraw' },
    ])
    // Once ended there is nothing left to withdraw from.
    const again = await withdraw(cookie, 'subscription', subscription)
    expect(again.statusCode).toBe(422)
    expect(again.json().code).toBe('invalid_state')
  })

  it('cancels an annual plan at once, with its refund and the partner’s event', async () => {
    const a = await seller()
    const plan = await paidAnnualPlan(a, daysAfter(-3))
    const cookie = await sessionOf(a.customer.document)

    const answer = await withdraw(cookie, 'annual_plan', plan)
    expect(answer.statusCode, answer.body).toBe(200)
    expect(answer.json()).toMatchObject({ kind: 'annual_plan', id: plan, status: 'canceled' })
    expect(answer.json().refund_amount).toBeGreaterThan(0)

    const seen = await ok<{ status: string; cancellation: { status: string; refund_amount: number } }>(
      a,
      'GET',
      `/annual-plans/${plan}`,
    )
    expect(seen.status).toBe('canceled')
    expect(seen.cancellation).toMatchObject({
      status: 'confirmed',
      refund_amount: answer.json().refund_amount,
    })
    const events = await ok<Events>(a, 'GET', '/events?type=annual_plan.canceled')
    expect(events.data.map((e) => e.data.object.id)).toContain(plan)
    expect(await auditOf('annual_plan', plan)).toEqual([
      { actor_label: `insured:${a.customer.id}`, action: 'portal.withdraw' },
    ])
  })

  it('refuses on day 8 and another document’s contract, changing nothing', async () => {
    const a = await seller()
    const stranger = await seller()
    const late = await paidSubscription(a, { paidAt: daysAfter(-7.01) })
    const latePlan = await paidAnnualPlan(a, daysAfter(-8))
    const foreign = await paidSubscription(stranger, { paidAt: daysAfter(-1) })
    const cookie = await sessionOf(a.customer.document)

    for (const [kind, id] of [
      ['subscription', late],
      ['annual_plan', latePlan],
    ] as const) {
      const answer = await withdraw(cookie, kind, id)
      expect(answer.statusCode, answer.body).toBe(422)
      expect(answer.json().code).toBe('invalid_state')
    }
    expect((await withdraw(cookie, 'subscription', foreign)).statusCode).toBe(404)
    expect((await ok<{ status: string }>(a, 'GET', `/subscriptions/${late}`)).status).toBe('pago')
    expect((await ok<{ status: string }>(a, 'GET', `/annual-plans/${latePlan}`)).status).not.toBe('canceled')
    expect((await ok<{ status: string }>(stranger, 'GET', `/subscriptions/${foreign}`)).status).toBe('pago')
  })
})
