import { beforeAll, describe, expect, it } from 'vitest'
import type { Clock } from '../src/shared/time.js'
import { ADDRESS, MARIA, uniqueImei } from './helpers/bodies.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, contractSubscription, galaxyOf, type Seller, seller, send } from './helpers/world.js'

// PIX and boleto with the sandbox gateway: a code, its expiry and a new one, and the sandbox's pay call.

const START = new Date('2026-11-21T15:00:00.000Z')
let now = START
const clock: Clock = { now: () => now }
const ctx = useTestApp(() => ({ clock }))
const HOUR = 3_600_000

let modelId = 0
beforeAll(async () => {
  modelId = await galaxyOf(ctx)
})

/** An own-gateway seller whose customer has an address (a boleto prints it). */
async function ownSeller(): Promise<Seller> {
  return seller(ctx, { partner: 'own', customer: { ...MARIA, address: ADDRESS } })
}

describe('PIX for an installment (sandbox)', () => {
  it('answers a pending code; the sandbox pays it; installment 1 paid with pix activates the subscription', async () => {
    now = START
    const s = await ownSeller()
    const sub = await contractSubscription(ctx, s, modelId)
    const [first] = await answer(ctx, s, 'GET', `/subscriptions/${sub.id}/installments`)
    const url = `/subscriptions/${sub.id}/installments/${first.id}/pix`
    const code = await answer(ctx, s, 'POST', url, undefined, 201)
    expect(code).toEqual({
      id: expect.any(Number),
      status: 'pending',
      amount: first.amount,
      qr_code: expect.stringMatching(/^000201.*BR\.GOV\.BCB\.PIX/),
      qr_code_png: expect.stringMatching(/\/pix\/[A-Za-z0-9_-]+\.png$/),
      expires_at: '2026-11-21 13:00:00',
    })
    // At most one pending code: asked again, the same one.
    expect(await answer(ctx, s, 'POST', url)).toEqual(code)
    const png = await ctx.app.inject({ method: 'GET', url: new URL(code.qr_code_png).pathname })
    expect(png.statusCode).toBe(200)
    expect(png.headers['content-type']).toBe('image/png')
    expect(png.rawPayload.subarray(1, 4).toString()).toBe('PNG')

    now = new Date(START.getTime() + 10 * 60_000)
    const paid = await answer(ctx, s, 'POST', `/sandbox/payments/${code.id}/pay`)
    expect(paid).toEqual({ id: code.id, method: 'pix', status: 'paid', paid_at: '2026-11-21 12:10:00' })
    const [after] = await answer(ctx, s, 'GET', `/subscriptions/${sub.id}/installments`)
    expect(after).toMatchObject({ status: 'paid', paid_with: 'pix', paid_at: '2026-11-21 12:10:00' })
    expect((await answer(ctx, s, 'GET', `/subscriptions/${sub.id}`)).status).toBe('pago')
    const events = await answer(ctx, s, 'GET', '/events?type=installment.paid')
    expect(
      events.data.map((e: { data: { object: { paid_with: string } } }) => e.data.object.paid_with),
    ).toEqual(['pix'])
    // Paid: the pay call answers the same; a new code is refused.
    expect(await answer(ctx, s, 'POST', `/sandbox/payments/${code.id}/pay`)).toEqual(paid)
    const again = await send(ctx, s, 'POST', url)
    expect(again.statusCode).toBe(422)
    expect(again.json().errors.status).toEqual(['The installment is already paid.'])
  })

  it('an expired code reads expired and cannot be paid; a new one may be asked for', async () => {
    now = START
    const s = await ownSeller()
    const sub = await contractSubscription(ctx, s, modelId)
    const [first] = await answer(ctx, s, 'GET', `/subscriptions/${sub.id}/installments`)
    const url = `/subscriptions/${sub.id}/installments/${first.id}/pix`
    const old = await answer(ctx, s, 'POST', url, undefined, 201)
    now = new Date(START.getTime() + HOUR)
    s.token = await s.login()
    const late = await send(ctx, s, 'POST', `/sandbox/payments/${old.id}/pay`)
    expect(late.statusCode).toBe(422)
    expect(late.json().errors.status).toEqual(['The payment code can no longer be paid: ask for a new one.'])
    const fresh = await answer(ctx, s, 'POST', url, undefined, 201)
    expect(fresh.id).not.toBe(old.id)
    expect(fresh.qr_code).not.toBe(old.qr_code)
    expect(fresh).toMatchObject({ status: 'pending', expires_at: '2026-11-21 14:00:00' })
    await answer(ctx, s, 'POST', `/sandbox/payments/${fresh.id}/pay`)
    const [after] = await answer(ctx, s, 'GET', `/subscriptions/${sub.id}/installments`)
    expect(after).toMatchObject({ status: 'paid', paid_with: 'pix' })
  })

  it('refuses an external-gateway partner (422 errors.gateway) and another partner’s installment (404)', async () => {
    now = START
    const ext = await seller(ctx, 'external')
    const sub = await contractSubscription(ctx, ext, modelId)
    const [first] = await answer(ctx, ext, 'GET', `/subscriptions/${sub.id}/installments`)
    const url = `/subscriptions/${sub.id}/installments/${first.id}/pix`
    const refused = await send(ctx, ext, 'POST', url)
    expect(refused.statusCode).toBe(422)
    expect(refused.json().errors.gateway).toBeDefined()
    expect((await send(ctx, await ownSeller(), 'POST', url)).statusCode).toBe(404)
  })
})

describe('boleto for an annual plan (sandbox)', () => {
  it('paid two days later through the sandbox clock: the plan paid with boleto, covered from the next day', async () => {
    now = START
    const s = await ownSeller()
    const plan = await answer(
      ctx,
      s,
      'POST',
      '/annual-plans',
      { model_id: modelId, customer_id: s.customerId, plan_id: s.annualPlanId, imei: uniqueImei() },
      201,
    )
    const boleto = await answer(ctx, s, 'POST', `/annual-plans/${plan.id}/boleto`, undefined, 201)
    expect(boleto).toEqual({
      id: expect.any(Number),
      status: 'pending',
      amount: plan.premium,
      number: expect.stringMatching(/^\d{47}$/),
      pdf_url: expect.stringMatching(/^https:\/\//),
      expires_at: '2026-11-25 00:00:00',
    })
    await answer(ctx, s, 'POST', '/sandbox/clock/advance', { days: 2 })
    await answer(ctx, s, 'POST', `/sandbox/payments/${boleto.id}/pay`)
    const paid = await answer(ctx, s, 'GET', `/annual-plans/${plan.id}`)
    expect(paid).toMatchObject({
      status: 'paid',
      paid_with: 'boleto',
      paid_at: '2026-11-23 12:00:00',
      starts_at: '2026-11-24 00:00:00',
    })
    const events = await answer(ctx, s, 'GET', '/events?type=annual_plan.paid')
    expect(
      events.data.map((e: { data: { object: { paid_with: string } } }) => e.data.object.paid_with),
    ).toEqual(['boleto'])
    const pix = await send(ctx, s, 'POST', `/annual-plans/${plan.id}/pix`)
    expect(pix.statusCode).toBe(422)
    expect(pix.json().errors.status).toBeDefined()
  })
})
