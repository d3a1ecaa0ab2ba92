import { beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { importCatalog } from '../src/modules/catalog/catalog-import.js'
import { useTestApp } from './helpers/test-app.js'
import { ANNUAL, bearer, createCustomer, partnerWithToken, seedPlans, TOTAL_12X } from './helpers/world.js'

// Amounts past a 32-bit integer of cents (R$ 21,474,836.47) are stored and answered exactly on
// both databases: PostgreSQL's money columns were 32-bit and answered 500 there (migration 0007).

const NOW = '2026-11-21T12:00:00.000Z'
const LMI = 50_000_000 // R$ 50 million: 5,000,000,000 cents

let token: string
let modelId: number
const plans = { subscription: 0, annual: 0 }

const ctx = useTestApp()
beforeAll(async () => {
  await retryingTransaction(ctx.db, (trx) =>
    importCatalog(
      trx,
      { brands: [{ name: 'Vertu', models: [{ name: 'Signature', default_lmi: LMI }] }] },
      NOW,
    ),
  )
  modelId = (await ctx.db.selectFrom('models').select('id').executeTakeFirstOrThrow()).id
  const seeded = await partnerWithToken(ctx.app, ctx.db)
  const [subscription, annual] = await seedPlans(ctx.db, seeded.partner.id, [TOTAL_12X, ANNUAL], NOW)
  plans.subscription = subscription.id
  plans.annual = annual.id
  token = seeded.token
  await createCustomer(ctx.app, token)
})

const post = async (url: string, payload: object) => {
  const response = await ctx.app.inject({ method: 'POST', url, headers: bearer(token), payload })
  expect(response.statusCode, response.body).toBe(201)
  return response.json()
}
const get = async (url: string) => (await ctx.app.inject({ url, headers: bearer(token) })).json()

describe('amounts past R$ 21,474,836.47', () => {
  it('contracts a subscription and keeps every amount exact', async () => {
    const contracted = await post('/subscriptions', {
      plan_id: plans.subscription,
      customer_document: '52998224725',
      model_id: modelId,
    })
    expect([contracted.lmi, contracted.valor, contracted.franchise]).toEqual([LMI, 600_000, 7_500_000])
    expect(await get(`/subscriptions/${contracted.id}`)).toEqual(contracted)
    const installments = await get(`/subscriptions/${contracted.id}/installments`)
    expect(installments.map((i: { amount: number }) => i.amount)).toEqual(Array(12).fill(600_000))
  })

  it('contracts an annual plan and records its payment', async () => {
    const contracted = await post('/annual-plans', {
      customer_document: '52998224725',
      model_id: modelId,
      imei: '490154203237518',
      payment: { method: 'pix' },
    })
    expect([contracted.lmi, contracted.premium]).toEqual([LMI, 5_500_000])
    const paid = await ctx.app.inject({
      method: 'POST',
      url: `/annual-plans/${contracted.id}/notify-payment`,
      headers: bearer(token),
    })
    expect(paid.statusCode, paid.body).toBe(200)
    const read = await get(`/annual-plans/${contracted.id}`)
    expect([read.status, read.premium]).toEqual(['paid', 5_500_000])
    const ledger = await ctx.db.selectFrom('payments').select('amount').execute()
    expect(ledger.map((row) => Number(row.amount))).toEqual([550_000_000])
  })
})
