import { beforeAll, describe, expect, it } from 'vitest'
import { uniqueImei } from './helpers/bodies.js'
import {
  type ClaimParty,
  claimOf,
  claimParty,
  decide,
  eventsOf,
  paidAnnualPlan,
  paidSubscription,
  settle,
} from './helpers/claim-decisions-world.js'
import { useTestApp } from './helpers/test-app.js'
import { bearer, seedCatalog } from './helpers/world.js'

// The settlement of a claim through the sandbox (POST /sandbox/claims/{id}/settle) and what it does
// to the contract (README, Claims: decision and settlement): a replacement or an indemnity ends it
// as `claim_settled` and frees the device; a repair keeps it.

let model: number
let p: ClaimParty

const ctx = useTestApp()
beforeAll(async () => {
  model = (await seedCatalog(ctx.db)).model('Galaxy S25').id
  p = await claimParty(ctx.app, ctx.db, model)
})

const get = async (party: ClaimParty, url: string) => {
  const response = await ctx.app.inject({ method: 'GET', url, headers: bearer(party.token) })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}

/** An approved claim of the contract, by `method`. */
async function approved(
  contract: { subscriptionId: number } | { annualPlanId: number },
  method: string,
  party = p,
): Promise<number> {
  const id = await claimOf(ctx.db, contract)
  const response = await decide(ctx.app, party.token, id, {
    outcome: 'approved',
    settlement_method: method,
    approved_amount: 3000,
  })
  expect(response.statusCode, response.body).toBe(200)
  return id
}

describe('settling', () => {
  it('settles an approved claim with its reference, once', async () => {
    const id = await approved({ subscriptionId: await paidSubscription(ctx.app, p) }, 'repair')
    const response = await settle(ctx.app, p.token, id, { reference: ' OS-2026-0042 ' })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({
      id,
      status: 'settled',
      status_label: 'Concluído',
      decision: { outcome: 'approved', settlement_method: 'repair' },
      settlement: { reference: 'OS-2026-0042' },
    })
    const again = await settle(ctx.app, p.token, id, { reference: 'OS-2026-0042' })
    expect(again.statusCode).toBe(422)
    expect(again.json().code).toBe('invalid_state')
    expect(await eventsOf(ctx.db, 'claim.settled', id)).toHaveLength(1)
  })

  it('takes no reference, refuses one over 100 characters and any claim not approved', async () => {
    const id = await approved({ subscriptionId: await paidSubscription(ctx.app, p) }, 'repair')
    const long = await settle(ctx.app, p.token, id, { reference: 'x'.repeat(101) })
    expect(long.statusCode).toBe(422)
    expect(Object.keys(long.json().errors)).toEqual(['reference'])
    const none = await settle(ctx.app, p.token, id)
    expect(none.statusCode, none.body).toBe(200)
    expect(none.json().settlement).toMatchObject({ reference: null })

    const review = await claimOf(ctx.db, { subscriptionId: await paidSubscription(ctx.app, p) })
    const early = await settle(ctx.app, p.token, review)
    expect(early.statusCode).toBe(422)
    expect(early.json().errors.status[0]).toMatch(/only a claim approved can be settled/)
  })

  it("answers 404 for another partner's claim", async () => {
    const stranger = await claimParty(ctx.app, ctx.db, model)
    const id = await approved(
      { subscriptionId: await paidSubscription(ctx.app, stranger) },
      'repair',
      stranger,
    )
    expect((await settle(ctx.app, p.token, id)).statusCode).toBe(404)
  })

  it('of two settlements at once one wins; the contract ends once', async () => {
    const subscriptionId = await paidSubscription(ctx.app, p)
    const id = await approved({ subscriptionId }, 'replacement')
    const answers = await Promise.all([
      settle(ctx.app, p.token, id, { reference: 'A' }),
      settle(ctx.app, p.token, id, { reference: 'B' }),
    ])
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 422])
    expect(answers.find((a) => a.statusCode === 422)?.json().code).toBe('invalid_state')
    expect(await eventsOf(ctx.db, 'claim.settled', id)).toHaveLength(1)
    expect(await eventsOf(ctx.db, 'subscription.canceled', subscriptionId)).toHaveLength(1)
  })
})

describe('a subscription', () => {
  it('ends by a replacement: canceled as claim_settled, nothing more charged, its device free', async () => {
    const own = await claimParty(ctx.app, ctx.db, model, 'own')
    const serial = uniqueImei()
    const ended = await paidSubscription(ctx.app, own, serial, 'card')
    const repaired = await paidSubscription(ctx.app, own, uniqueImei(), 'card')
    const endedClaim = await approved({ subscriptionId: ended }, 'replacement', own)
    const repairedClaim = await approved({ subscriptionId: repaired }, 'repair', own)

    // Still protected while the claim is only approved.
    const taken = await ctx.app.inject({
      method: 'POST',
      url: '/subscriptions',
      headers: bearer(p.token),
      payload: {
        plan_id: p.subscriptionPlanId,
        customer_id: p.customerId,
        model_id: model,
        serial_number: serial,
      },
    })
    expect(taken.statusCode).toBe(422)

    expect((await settle(ctx.app, own.token, endedClaim, { reference: 'TROCA-1' })).statusCode).toBe(200)
    expect((await settle(ctx.app, own.token, repairedClaim, { reference: 'OS-1' })).statusCode).toBe(200)

    const subscription = await get(own, `/subscriptions/${ended}`)
    expect(subscription).toMatchObject({
      status: 'canceled',
      cancellation: { reason: 'claim_settled', comment: null },
    })
    const installments: { number: number; status: string }[] = await get(
      own,
      `/subscriptions/${ended}/installments`,
    )
    expect(installments.map((i) => i.status)).toEqual(['paid', ...Array(11).fill('canceled')])
    expect(await eventsOf(ctx.db, 'subscription.canceled', ended)).toHaveLength(1)
    expect((await get(own, `/subscriptions/${repaired}`)).status).toBe('pago')

    // A month on, the worker charges the repaired subscription's installment 2 and nothing of the ended one.
    const advance = await ctx.app.inject({
      method: 'POST',
      url: '/sandbox/clock/advance',
      headers: bearer(own.token),
      payload: { days: 35 },
    })
    expect(advance.statusCode, advance.body).toBe(200)
    expect(advance.json().jobs.recurrence).toMatchObject({ charged: 1, canceled: 0 })
    const after: { status: string }[] = await get(own, `/subscriptions/${ended}/installments`)
    expect(after.map((i) => i.status)).toEqual(['paid', ...Array(11).fill('canceled')])
    const kept: { status: string }[] = await get(own, `/subscriptions/${repaired}/installments`)
    expect(kept.slice(0, 2).map((i) => i.status)).toEqual(['paid', 'paid'])

    // The device may be protected again.
    expect(await paidSubscription(ctx.app, p, serial)).toBeGreaterThan(0)
  })

  it('is kept by a repair, its device still protected', async () => {
    const serial = uniqueImei()
    const subscriptionId = await paidSubscription(ctx.app, p, serial)
    const id = await approved({ subscriptionId }, 'repair')
    expect((await settle(ctx.app, p.token, id)).statusCode).toBe(200)
    expect(await get(p, `/subscriptions/${subscriptionId}`)).toMatchObject({
      status: 'pago',
      cancellation: null,
    })
    expect(await eventsOf(ctx.db, 'subscription.canceled', subscriptionId)).toHaveLength(0)
    const taken = await ctx.app.inject({
      method: 'POST',
      url: '/subscriptions',
      headers: bearer(p.token),
      payload: {
        plan_id: p.subscriptionPlanId,
        customer_id: p.customerId,
        model_id: model,
        serial_number: serial,
      },
    })
    expect(taken.statusCode).toBe(422)
  })
})

describe('an annual plan', () => {
  it('ends by an indemnity: canceled as claim_settled without refund, its IMEI free', async () => {
    const imei = uniqueImei()
    const planId = await paidAnnualPlan(ctx.app, p, imei)
    const id = await approved({ annualPlanId: planId }, 'indemnity')
    expect((await settle(ctx.app, p.token, id, { reference: 'PIX-1' })).statusCode).toBe(200)
    const plan = await get(p, `/annual-plans/${planId}`)
    expect(plan).toMatchObject({
      status: 'canceled',
      cancellation: { status: 'confirmed', reason: 'claim_settled', refund_amount: 0, refund_status: 'none' },
    })
    expect(await eventsOf(ctx.db, 'annual_plan.canceled', planId)).toHaveLength(1)
    expect(await paidAnnualPlan(ctx.app, p, imei)).toBeGreaterThan(0)
  })

  it('confirms an open cancellation request as claim_settled, without refund', async () => {
    const planId = await paidAnnualPlan(ctx.app, p)
    const requested = await ctx.app.inject({
      method: 'PUT',
      url: `/annual-plans/${planId}/cancellation`,
      headers: bearer(p.token),
      payload: { reason: 'Cliente desistiu.' },
    })
    expect(requested.statusCode, requested.body).toBe(200)
    const id = await approved({ annualPlanId: planId }, 'replacement')
    expect((await settle(ctx.app, p.token, id)).statusCode).toBe(200)
    expect(await get(p, `/annual-plans/${planId}`)).toMatchObject({
      status: 'canceled',
      cancellation: {
        protocol: requested.json().protocol,
        status: 'confirmed',
        reason: 'claim_settled',
        refund_amount: 0,
        refund_status: 'none',
      },
    })
  })

  it('is kept by a repair', async () => {
    const planId = await paidAnnualPlan(ctx.app, p)
    const id = await approved({ annualPlanId: planId }, 'repair')
    expect((await settle(ctx.app, p.token, id)).statusCode).toBe(200)
    const plan = await get(p, `/annual-plans/${planId}`)
    expect(plan.status).not.toBe('canceled')
    expect(plan.cancellation).toBeNull()
  })
})
