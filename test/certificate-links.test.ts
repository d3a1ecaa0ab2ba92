import { beforeAll, describe, expect, it } from 'vitest'
import { uniqueImei } from './helpers/bodies.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, contractSubscription, type Seller, seedCatalog, seller } from './helpers/world.js'

// A contract in force shows its certificate and verification code (README, Certificates), and the
// public verification reads the contract at its partner's sandbox clock, as the partner does.

const NOW = new Date('2026-11-21T15:00:00.000Z')
const ctx = useTestApp({ clock: { now: () => NOW } })

let s: Seller
let galaxy: number

beforeAll(async () => {
  galaxy = (await seedCatalog(ctx.db)).model('Galaxy S25').id
  s = await seller(ctx)
})

const CODE = /^[A-Z2-7]{32}$/

async function verify(url: string) {
  const response = await ctx.app.inject({ method: 'GET', url: new URL(url).pathname })
  expect(response.statusCode, response.body).toBe(200)
  return response.json()
}

describe('certificate on a contract', () => {
  it('is null while a subscription is pending, then its PDF and verification code once pago', async () => {
    const contracted = await contractSubscription(ctx, s, galaxy, { serial_number: uniqueImei() })
    expect(contracted.certificate).toBeNull()
    const [first] = await answer(ctx, s, 'GET', `/subscriptions/${contracted.id}/installments`)
    await answer(ctx, s, 'POST', `/subscriptions/${contracted.id}/installments/${first.id}/notify-payment`)
    const paid = await answer(ctx, s, 'GET', `/subscriptions/${contracted.id}`)
    expect(paid.certificate).toEqual({
      url: expect.stringMatching(new RegExp(`/subscriptions/${paid.id}/certificate$`)),
      verification_code: expect.stringMatching(CODE),
      verification_url: expect.stringMatching(/\/certificates\/[A-Z2-7]{32}$/),
    })
    expect(paid.certificate.verification_url).toContain(paid.certificate.verification_code)
    const pdf = await ctx.app.inject({
      method: 'GET',
      url: new URL(paid.certificate.url).pathname,
      headers: { authorization: `Bearer ${s.token}` },
    })
    expect(pdf.statusCode).toBe(200)
    expect(pdf.headers['content-type']).toBe('application/pdf')
    expect(await verify(paid.certificate.verification_url)).toMatchObject({
      valid: true,
      number: paid.policy_number,
      status: 'pago',
    })

    await answer(ctx, s, 'POST', `/subscriptions/${paid.id}/cancellation`, {})
    const canceled = await answer(ctx, s, 'GET', `/subscriptions/${paid.id}`)
    expect(canceled.certificate).toBeNull()
  })

  it('follows the partner’s sandbox clock in the verification: paid, then protected a day later', async () => {
    const body = {
      model_id: galaxy,
      customer_id: s.customerId,
      imei: uniqueImei(),
      payment: { method: 'pix' },
    }
    const contracted = await answer(ctx, s, 'POST', '/annual-plans', body, 201)
    expect(contracted.certificate).toBeNull()
    const paid = await answer(ctx, s, 'POST', `/annual-plans/${contracted.id}/notify-payment`)
    const plan = await answer(ctx, s, 'GET', `/annual-plans/${paid.id}`)
    expect(plan.status).toBe('paid')
    expect(plan.certificate.url).toMatch(new RegExp(`/annual-plans/${plan.id}/certificate$`))
    expect(await verify(plan.certificate.verification_url)).toMatchObject({ valid: true, status: 'paid' })

    // Cover starts at 00:00 of the next day (service zone): the partner's clock moves past it.
    await answer(ctx, s, 'POST', '/sandbox/clock/advance', { days: 1 })
    const later = await answer(ctx, s, 'GET', `/annual-plans/${plan.id}`)
    expect(later.status).toBe('protected')
    expect(later.certificate).toEqual(plan.certificate)
    expect(await verify(plan.certificate.verification_url)).toMatchObject({
      valid: true,
      status: 'protected',
    })
  })
})
