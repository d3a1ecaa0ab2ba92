import { beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../src/db/database.js'
import { retryingTransaction } from '../src/db/transaction.js'
import type { AnnualQuote, SubscriptionQuote, SubscriptionQuotes } from './helpers/api-types.js'
import { expectedError } from './helpers/errors.js'
import { type TestContext, useTestApp } from './helpers/test-app.js'
import {
  ANNUAL,
  bearer,
  COVERAGES,
  ESSENCIAL_24X,
  type PlanTemplate,
  partnerWithToken,
  seedCatalog,
  seedPlans,
  TOTAL_12X,
} from './helpers/world.js'

// Expected amounts are worked out by hand in cents: LMI (cents) × rate (bp) ÷ 10000, half-up.

const NOW = '2026-11-21T12:00:00.000Z'

const ANNUAL_PREMIUM: PlanTemplate = {
  kind: 'annual',
  name: 'Proteção Anual Premium',
  annualRateBp: 2000,
  usedFactorBp: 13_000,
  coverages: COVERAGES,
}

type Catalog = Awaited<ReturnType<typeof seedCatalog>>

async function deactivatePlan(db: Db, planId: number) {
  await retryingTransaction(db, (trx) =>
    trx.updateTable('plans').set({ active: false }).where('id', '=', planId).execute(),
  )
}

async function setLmiFactors(db: Db, partnerId: number, minBp: number, maxBp: number) {
  await retryingTransaction(db, (trx) =>
    trx
      .updateTable('partners')
      .set({ lmi_min_factor_bp: minBp, lmi_max_factor_bp: maxBp })
      .where('id', '=', partnerId)
      .execute(),
  )
}

/** A partner of its own with the given plans, so what a test changes for it stays out of the others. */
async function partnerWithPlans(ctx: TestContext, plans: PlanTemplate[] = []) {
  const { partner, token } = await partnerWithToken(ctx.app, ctx.db)
  return { partner, plans: await seedPlans(ctx.db, partner.id, plans, NOW), token }
}

/** The rows' ids, checked to be `count`, so that destructuring them is safe. */
function ids(rows: { id: number }[], count: number): number[] {
  expect(rows).toHaveLength(count)
  return rows.map((row) => row.id)
}

function get(ctx: TestContext, token: string | null, url: string) {
  return ctx.app.inject({ method: 'GET', url, headers: token ? bearer(token) : {} })
}

async function okJson<T>(ctx: TestContext, token: string, url: string): Promise<T> {
  const response = await get(ctx, token, url)
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200)
  return response.json() as T
}

async function expect422(ctx: TestContext, token: string, url: string, errors: Record<string, string[]>) {
  const response = await get(ctx, token, url)
  expect(response.statusCode, `${url}: ${response.body}`).toBe(422)
  const body = response.json()
  expect(body.errors).toEqual(errors)
  expect(body.message).toContain(Object.values(errors)[0]?.[0])
}

async function expect404(ctx: TestContext, token: string, url: string) {
  const response = await get(ctx, token, url)
  expect(response.statusCode, `${url}: ${response.body}`).toBe(404)
  expect(response.json()).toEqual(expectedError(response, 'not_found', { message: expect.any(String) }))
}

const MODEL_INVALID = 'The selected model id is invalid.'
const MAXIMA_DECIMALS = 'The maxima field must have at most 2 decimal places.'
const MAXIMA_NAN = 'The maxima field must be a number.'

describe('plans and quotations', () => {
  let catalog: Catalog
  /** iPhone 16 Pro: default LMI R$ 8,999.00 = 899900 cents; range 0.5–1.0 → [449950, 899900]. */
  let pro: number
  /** iPhone 15: default LMI R$ 4,999.90 = 499990 cents; range 0.5–1.0 → [249995, 499990]. */
  let iphone15: number
  let a: Awaited<ReturnType<typeof partnerWithPlans>>
  let b: Awaited<ReturnType<typeof partnerWithPlans>>
  let total: number
  let inactive: number
  let annual: number
  let essencial: number
  let annualPremium: number
  let otherSubscription: number
  let otherAnnual: number

  const ctx = useTestApp()
  beforeAll(async () => {
    catalog = await seedCatalog(ctx.db)
    pro = catalog.model('iPhone 16 Pro').id
    iphone15 = catalog.model('iPhone 15').id
    const old: PlanTemplate = { ...TOTAL_12X, name: 'Plano Antigo 6x', installments: 6, monthlyRateBp: 200 }
    // Interleaved kinds: the lists must filter by kind, not rely on creation order.
    a = await partnerWithPlans(ctx, [TOTAL_12X, old, ANNUAL, ESSENCIAL_24X, ANNUAL_PREMIUM])
    ;[total, inactive, annual, essencial, annualPremium] = ids(a.plans, 5) as [
      number,
      number,
      number,
      number,
      number,
    ]
    await deactivatePlan(ctx.db, inactive)
    b = await partnerWithPlans(ctx, [
      { ...TOTAL_12X, name: 'Plano B 10x', installments: 10, monthlyRateBp: 150 },
      { ...ANNUAL, name: 'Anual B', annualRateBp: 900 },
    ])
    ;[otherSubscription, otherAnnual] = ids(b.plans, 2) as [number, number]
  })

  describe('GET /plans', () => {
    it("lists the partner's active subscription plans by id, with coverages", async () => {
      expect(await okJson(ctx, a.token, '/plans')).toEqual([
        {
          id: total,
          name: 'Proteção Total 12x',
          installments: 12,
          coverages: COVERAGES,
          coverage_types: ['robbery', 'qualified_theft', 'accidental_damage', 'liquid_damage'],
          claim_notice_days: 30,
          max_claims_per_year: 2,
        },
        {
          id: essencial,
          name: 'Proteção Essencial 24x',
          installments: 24,
          coverages: COVERAGES.slice(0, 2),
          // The types the coverages' words name (README, Claims).
          coverage_types: ['robbery', 'qualified_theft', 'accidental_damage'],
          claim_notice_days: 30,
          max_claims_per_year: 2,
        },
      ])
    })

    it("lists only the partner's own plans", async () => {
      expect(await okJson(ctx, b.token, '/plans')).toEqual([
        {
          id: otherSubscription,
          name: 'Plano B 10x',
          installments: 10,
          coverages: COVERAGES,
          coverage_types: ['robbery', 'qualified_theft', 'accidental_damage', 'liquid_damage'],
          claim_notice_days: 30,
          max_claims_per_year: 2,
        },
      ])
    })

    it('is an empty array for a partner without subscription plans', async () => {
      const { token } = await partnerWithPlans(ctx, [ANNUAL])
      expect(await okJson(ctx, token, '/plans')).toEqual([])
    })
  })

  describe('GET /quotation', () => {
    it("prices every active subscription plan at the model's default LMI", async () => {
      expect(await okJson(ctx, a.token, `/quotation?model_id=${pro}`)).toEqual({
        plans: [
          // 899900 × 120 bp = 10798.8 → 10799
          { id: total, name: 'Proteção Total 12x', monthly_premium: 107.99, lmi: 8999, installments: 12 },
          // 899900 × 100 bp = 8999
          {
            id: essencial,
            name: 'Proteção Essencial 24x',
            monthly_premium: 89.99,
            lmi: 8999,
            installments: 24,
          },
        ],
      })
    })

    it('applies a maxima inside the range and rounds each premium to the cent', async () => {
      const quote = await okJson<SubscriptionQuotes>(
        ctx,
        a.token,
        `/quotation?model_id=${pro}&maxima=6543.21`,
      )
      expect(quote.plans).toEqual([
        // 654321 × 120 bp = 7851.852 → 7852
        { id: total, name: 'Proteção Total 12x', monthly_premium: 78.52, lmi: 6543.21, installments: 12 },
        // 654321 × 100 bp = 6543.21 → 6543
        {
          id: essencial,
          name: 'Proteção Essencial 24x',
          monthly_premium: 65.43,
          lmi: 6543.21,
          installments: 24,
        },
      ])
    })

    it('rounds half a cent up', async () => {
      const quote = await okJson<SubscriptionQuotes>(
        ctx,
        a.token,
        `/quotation?model_id=${iphone15}&maxima=2500.5`,
      )
      // 250050 × 120 bp = 3000.6 → 3001; 250050 × 100 bp = 2500.5 → 2501 (half-even would give 2500)
      expect(quote.plans.map((p) => [p.lmi, p.monthly_premium])).toEqual([
        [2500.5, 30.01],
        [2500.5, 25.01],
      ])
    })

    it.each([
      ['exactly the minimum', '4499.5', 4499.5, 53.99], // 449950 × 120 bp = 5399.4 → 5399
      ['the minimum with a trailing zero', '4499.50', 4499.5, 53.99],
      ['a cent below the minimum', '4499.49', 8999, 107.99],
      ['inside', '6000', 6000, 72], // 600000 × 120 bp = 7200
      ['inside, in exponent form', '6e3', 6000, 72],
      ['the minimum in exponent form', '4.4995E3', 4499.5, 53.99],
      ['exactly the maximum', '8999', 8999, 107.99],
      ['the maximum with decimals', '8999.00', 8999, 107.99],
      ['a cent above the maximum', '8999.01', 8999, 107.99],
      ['far above the maximum', '1000000', 8999, 107.99],
      ['far above, in exponent form', '1e30', 8999, 107.99],
      ['zero', '0', 8999, 107.99],
      ['negative zero', '-0', 8999, 107.99],
      ['negative', '-100', 8999, 107.99],
      ['the minimum negated', '-4499.5', 8999, 107.99],
      ['empty', '', 8999, 107.99],
    ])('maxima %s (%s) → LMI %s, premium %s', async (_label, maxima, lmi, premium) => {
      const url = `/quotation?model_id=${pro}&maxima=${encodeURIComponent(maxima)}`
      const quote = await okJson<SubscriptionQuotes>(ctx, a.token, url)
      expect(quote.plans[0]).toEqual({
        id: total,
        name: 'Proteção Total 12x',
        monthly_premium: premium,
        lmi,
        installments: 12,
      })
    })

    it.each([
      ['abc', MAXIMA_NAN],
      ['NaN', MAXIMA_NAN],
      ['Infinity', MAXIMA_NAN],
      ['1e400', MAXIMA_NAN],
      ['0x10', MAXIMA_NAN],
      [' 100', MAXIMA_NAN],
      ['1.005', MAXIMA_DECIMALS],
      ['4499.505', MAXIMA_DECIMALS],
      ['0.001', MAXIMA_DECIMALS],
      ['-1.005', MAXIMA_DECIMALS],
    ])('refuses maxima=%s with 422', async (maxima, message) => {
      const response = await get(
        ctx,
        a.token,
        `/quotation?model_id=${pro}&maxima=${encodeURIComponent(maxima)}`,
      )
      expect(response.statusCode).toBe(422)
      expect(response.json()).toEqual(
        expectedError(response, 'validation_failed', { message, errors: { maxima: [message] } }),
      )
    })

    it.each([
      ['inactive', 'iPhone 12'],
      ['inactive and of an inactive brand', '3310'],
    ])('refuses an %s model with 422 errors.model_id', async (_label, name) => {
      const response = await get(ctx, a.token, `/quotation?model_id=${catalog.model(name).id}`)
      expect(response.statusCode).toBe(422)
      expect(response.json()).toEqual(
        expectedError(response, 'validation_failed', {
          message: MODEL_INVALID,
          errors: { model_id: [MODEL_INVALID] },
        }),
      )
    })

    it('refuses an unknown model with 422 errors.model_id', async () => {
      await expect422(ctx, a.token, '/quotation?model_id=987654', { model_id: [MODEL_INVALID] })
    })

    it('refuses a model unavailable to this partner, or attributed only to another one', async () => {
      const own = await partnerWithPlans(ctx, [TOTAL_12X])
      const s25 = catalog.model('Galaxy S25').id
      const a15 = catalog.model('Galaxy A15').id
      await retryingTransaction(ctx.db, (trx) =>
        trx
          .updateTable('partner_models')
          .set({ unavailable: true })
          .where('partner_id', '=', own.partner.id)
          .where('model_id', '=', s25)
          .execute(),
      )
      await retryingTransaction(ctx.db, (trx) =>
        trx
          .deleteFrom('partner_models')
          .where('partner_id', '=', own.partner.id)
          .where('model_id', '=', a15)
          .execute(),
      )

      for (const model of [s25, a15]) {
        await expect422(ctx, own.token, `/quotation?model_id=${model}`, { model_id: [MODEL_INVALID] })
        await expect422(ctx, own.token, `/plans/${own.plans[0]?.id}/quotation?model_id=${model}`, {
          model_id: [MODEL_INVALID],
        })
        // Other partners still sell them.
        const quote = await okJson<SubscriptionQuotes>(ctx, a.token, `/quotation?model_id=${model}`)
        expect(quote.plans).toHaveLength(2)
      }
      // 649900 × 120 bp = 7798.8 → 7799
      const s25Quote = await okJson<SubscriptionQuotes>(ctx, a.token, `/quotation?model_id=${s25}`)
      expect(s25Quote.plans[0]).toMatchObject({ lmi: 6499, monthly_premium: 77.99 })
    })

    it.each([
      ['', 'model_id', 'The model id field is required.'],
      ['model_id=', 'model_id', 'The model id field is required.'],
      ['model_id=abc', 'model_id', 'The model id field must be an integer.'],
      ['model_id=1.5', 'model_id', 'The model id field must be an integer.'],
      ['model_id=0', 'model_id', 'The model id field must be at least 1.'],
      ['model_id=99999999999', 'model_id', 'The model id field must not be greater than 2147483647.'],
    ])('refuses "%s" with 422', async (query, key, message) => {
      const response = await get(ctx, a.token, `/quotation?${query}`)
      expect(response.statusCode).toBe(422)
      expect(response.json()).toEqual(
        expectedError(response, 'validation_failed', { message, errors: { [key]: [message] } }),
      )
    })

    it('reports an invalid model and an invalid maxima together', async () => {
      const response = await get(ctx, a.token, '/quotation?model_id=987654&maxima=1.005')
      expect(response.statusCode).toBe(422)
      expect(response.json()).toEqual(
        expectedError(response, 'validation_failed', {
          message: `${MODEL_INVALID} (and 1 more error)`,
          errors: { model_id: [MODEL_INVALID], maxima: [MAXIMA_DECIMALS] },
        }),
      )
    })

    it('answers an empty list to a partner without subscription plans, after checking the model', async () => {
      const { token } = await partnerWithPlans(ctx, [ANNUAL])
      expect(await okJson(ctx, token, `/quotation?model_id=${pro}`)).toEqual({ plans: [] })
      await expect422(ctx, token, '/quotation?model_id=987654', { model_id: [MODEL_INVALID] })
    })
  })

  describe('GET /plans/{planId}/quotation', () => {
    it('prices one plan like the list does', async () => {
      expect(await okJson(ctx, a.token, `/plans/${total}/quotation?model_id=${pro}`)).toEqual({
        id: total,
        name: 'Proteção Total 12x',
        monthly_premium: 107.99,
        lmi: 8999,
        installments: 12,
      })
      expect(
        await okJson(ctx, a.token, `/plans/${essencial}/quotation?model_id=${pro}&maxima=6543.21`),
      ).toEqual({
        id: essencial,
        name: 'Proteção Essencial 24x',
        monthly_premium: 65.43,
        lmi: 6543.21,
        installments: 24,
      })
    })

    it.each([
      ['a cent below the minimum', '4499.49'],
      ['a cent above the maximum', '8999.01'],
      ['zero', '0'],
      ['negative', '-5'],
    ])('falls back to the default LMI for a maxima %s', async (_label, maxima) => {
      const quote = await okJson<SubscriptionQuote>(
        ctx,
        a.token,
        `/plans/${essencial}/quotation?model_id=${pro}&maxima=${maxima}`,
      )
      expect(quote).toMatchObject({ lmi: 8999, monthly_premium: 89.99 })
    })

    it('refuses maxima with more than two decimals or not a number', async () => {
      await expect422(ctx, a.token, `/plans/${total}/quotation?model_id=${pro}&maxima=1.005`, {
        maxima: [MAXIMA_DECIMALS],
      })
      await expect422(ctx, a.token, `/plans/${total}/quotation?model_id=${pro}&maxima=abc`, {
        maxima: [MAXIMA_NAN],
      })
    })

    it('refuses an inactive model or a missing model_id with 422', async () => {
      const iphone12 = catalog.model('iPhone 12').id
      await expect422(ctx, a.token, `/plans/${total}/quotation?model_id=${iphone12}`, {
        model_id: [MODEL_INVALID],
      })
      await expect422(ctx, a.token, `/plans/${total}/quotation`, {
        model_id: ['The model id field is required.'],
      })
    })

    it("answers 404 for another partner's plan, both ways", async () => {
      await expect404(ctx, a.token, `/plans/${otherSubscription}/quotation?model_id=${pro}`)
      await expect404(ctx, b.token, `/plans/${total}/quotation?model_id=${pro}`)
      const own = await okJson<SubscriptionQuote>(
        ctx,
        b.token,
        `/plans/${otherSubscription}/quotation?model_id=${pro}`,
      )
      expect(own).toMatchObject({ id: otherSubscription, monthly_premium: 134.99 }) // 899900 × 150 bp = 13498.5 → 13499
    })

    it('answers 404 for an annual plan, an inactive plan, and ids that name nothing', async () => {
      for (const id of [annual, annualPremium, inactive, 987654, 0, -1, 'abc', 99999999999]) {
        await expect404(ctx, a.token, `/plans/${id}/quotation?model_id=${pro}`)
      }
      const response = await get(ctx, a.token, `/plans/${annual}/quotation?model_id=${pro}`)
      expect(response.json()).toEqual(expectedError(response, 'not_found', { message: 'Plan not found.' }))
    })

    it('answers 404 for a plan not the partner’s even when the model is invalid too', async () => {
      const iphone12 = catalog.model('iPhone 12').id
      await expect404(ctx, a.token, `/plans/${otherSubscription}/quotation?model_id=${iphone12}&maxima=1.005`)
    })
  })

  describe('GET /annual-plans/quote', () => {
    /** The partner's default annual plan, as the quote names it. */
    const defaultPlan = () => ({ id: annual, name: ANNUAL.name, coverages: COVERAGES })

    it("prices the partner's default annual plan at the model's default LMI, and names it", async () => {
      // 899900 × 1100 bp = 98989
      expect(await okJson(ctx, a.token, `/annual-plans/quote?model_id=${pro}`)).toEqual({
        model: { id: pro, name: 'iPhone 16 Pro' },
        plan: defaultPlan(),
        premium: 989.89,
        lmi: 8999,
      })
    })

    it.each([
      // 899900 × 1100 bp × 11500 bp = 113837.35 → 113837
      ['used=true', 1138.37],
      ['used=false', 989.89],
      ['used=1', 1138.37],
      ['used=0', 989.89],
      ['used=', 989.89],
      ['is_used=true', 1138.37],
      ['is_used=1', 1138.37],
      ['used=true&is_used=1', 1138.37],
      ['used=0&is_used=false', 989.89],
      ['used=&is_used=true', 1138.37],
    ])('%s → premium %s', async (query, premium) => {
      const quote = await okJson<AnnualQuote>(ctx, a.token, `/annual-plans/quote?model_id=${pro}&${query}`)
      expect(quote).toEqual({
        model: { id: pro, name: 'iPhone 16 Pro' },
        plan: defaultPlan(),
        premium,
        lmi: 8999,
      })
    })

    it.each(['used=false&is_used=true', 'used=true&is_used=0'])(
      'refuses %s (the flag and its alias disagree) with 422',
      async (query) => {
        await expect422(ctx, a.token, `/annual-plans/quote?model_id=${pro}&${query}`, {
          used: ['The is used field and its alias used must agree.'],
        })
      },
    )

    it.each(['yes', '2', 'TRUE', 'on'])('refuses used=%s with 422', async (used) => {
      await expect422(ctx, a.token, `/annual-plans/quote?model_id=${pro}&used=${used}`, {
        used: ['The used field must be true or false.'],
      })
    })

    it('applies a maxima inside the range, with and without the used-device factor', async () => {
      const url = `/annual-plans/quote?model_id=${pro}&maxima=6543.21`
      // 654321 × 1100 bp = 71975.31 → 71975
      expect(await okJson<AnnualQuote>(ctx, a.token, url)).toMatchObject({
        premium: 719.75,
        lmi: 6543.21,
      })
      // 654321 × 1100 × 11500 / 10^8 = 82771.6065 → 82772
      expect(await okJson<AnnualQuote>(ctx, a.token, `${url}&used=true`)).toMatchObject({
        premium: 827.72,
        lmi: 6543.21,
      })
    })

    it('rounds half a cent up', async () => {
      // 450150 × 1100 bp = 49516.5 → 49517 (half-even would give 49516)
      const quote = await okJson<AnnualQuote>(
        ctx,
        a.token,
        `/annual-plans/quote?model_id=${pro}&maxima=4501.5`,
      )
      expect(quote).toMatchObject({ premium: 495.17, lmi: 4501.5 })
    })

    it.each([
      ['exactly the minimum', '4499.5', 4499.5, 494.95], // 449950 × 1100 bp = 49494.5 → 49495
      ['a cent below the minimum', '4499.49', 8999, 989.89],
      ['exactly the maximum', '8999', 8999, 989.89],
      ['a cent above the maximum', '8999.01', 8999, 989.89],
      ['zero', '0', 8999, 989.89],
      ['negative', '-4499.5', 8999, 989.89],
    ])('maxima %s (%s) → LMI %s, premium %s', async (_label, maxima, lmi, premium) => {
      const quote = await okJson<AnnualQuote>(
        ctx,
        a.token,
        `/annual-plans/quote?model_id=${pro}&maxima=${maxima}`,
      )
      expect(quote).toEqual({ model: { id: pro, name: 'iPhone 16 Pro' }, plan: defaultPlan(), premium, lmi })
    })

    it('refuses maxima with more than two decimals or not a number', async () => {
      await expect422(ctx, a.token, `/annual-plans/quote?model_id=${pro}&maxima=1.005`, {
        maxima: [MAXIMA_DECIMALS],
      })
      await expect422(ctx, a.token, `/annual-plans/quote?model_id=${pro}&maxima=abc`, {
        maxima: [MAXIMA_NAN],
      })
    })

    it('refuses an inactive, unknown or missing model with 422', async () => {
      await expect422(ctx, a.token, `/annual-plans/quote?model_id=${catalog.model('iPhone 12').id}`, {
        model_id: [MODEL_INVALID],
      })
      await expect422(ctx, a.token, '/annual-plans/quote?model_id=987654&used=true', {
        model_id: [MODEL_INVALID],
      })
      await expect422(ctx, a.token, '/annual-plans/quote?used=true', {
        model_id: ['The model id field is required.'],
      })
    })

    it('quotes the annual plan named by plan_id', async () => {
      const url = `/annual-plans/quote?model_id=${pro}&plan_id=${annualPremium}`
      // 899900 × 2000 bp = 179980
      expect(await okJson<AnnualQuote>(ctx, a.token, url)).toMatchObject({
        plan: { id: annualPremium, name: ANNUAL_PREMIUM.name },
        premium: 1799.8,
        lmi: 8999,
      })
      // 899900 × 2000 × 13000 / 10^8 = 233974
      expect(await okJson<AnnualQuote>(ctx, a.token, `${url}&used=1`)).toMatchObject({ premium: 2339.74 })
    })

    it.each([
      ['a subscription plan', () => total],
      ["another partner's annual plan", () => otherAnnual],
      ['an unknown plan', () => 987654],
    ])('refuses plan_id of %s with 422 errors.plan_id', async (_label, id) => {
      await expect422(ctx, a.token, `/annual-plans/quote?model_id=${pro}&plan_id=${id()}`, {
        plan_id: ['The selected plan id is invalid.'],
      })
    })

    it("uses each partner's own default plan", async () => {
      // 899900 × 900 bp = 80991
      expect(await okJson<AnnualQuote>(ctx, b.token, `/annual-plans/quote?model_id=${pro}`)).toMatchObject({
        premium: 809.91,
      })
    })

    it('without a default, quotes the oldest active annual plan; an inactive default does not count', async () => {
      const first: PlanTemplate = { ...ANNUAL, name: 'Primeiro', annualRateBp: 1000, isDefault: false }
      const second: PlanTemplate = { ...ANNUAL, name: 'Segundo', annualRateBp: 3000, isDefault: false }
      const own = await partnerWithPlans(ctx, [TOTAL_12X, first, second])
      const url = `/annual-plans/quote?model_id=${pro}`
      // 899900 × 1000 bp = 89990
      expect(await okJson<AnnualQuote>(ctx, own.token, url)).toMatchObject({ premium: 899.9 })

      const [, , secondId] = ids(own.plans, 3) as [number, number, number]
      await retryingTransaction(ctx.db, (trx) =>
        trx.updateTable('plans').set({ is_default: true }).where('id', '=', secondId).execute(),
      )
      // 899900 × 3000 bp = 269970
      expect(await okJson<AnnualQuote>(ctx, own.token, url)).toMatchObject({ premium: 2699.7 })

      await deactivatePlan(ctx.db, secondId)
      expect(await okJson<AnnualQuote>(ctx, own.token, url)).toMatchObject({ premium: 899.9 })
    })

    it('refuses with 422 errors.plan_id when the partner has no active annual plan', async () => {
      const own = await partnerWithPlans(ctx, [TOTAL_12X, ANNUAL])
      await deactivatePlan(ctx.db, ids(own.plans, 2)[1] as number)
      const none = await partnerWithPlans(ctx, [TOTAL_12X])
      for (const token of [own.token, none.token]) {
        const response = await get(ctx, token, `/annual-plans/quote?model_id=${pro}`)
        expect(response.statusCode).toBe(422)
        expect(response.json()).toEqual(
          expectedError(response, 'validation_failed', {
            message: 'This partner has no annual plan to quote.',
            errors: { plan_id: ['This partner has no annual plan to quote.'] },
          }),
        )
      }
      await expect422(ctx, none.token, '/annual-plans/quote?model_id=987654', {
        model_id: [MODEL_INVALID],
        plan_id: ['This partner has no annual plan to quote.'],
      })
    })
  })

  describe("the partner's authorized range", () => {
    // Factors 0.3333–1.16 on the iPhone 15 (499990 cents):
    // min 499990 × 3333 bp = 166646.667 → 166647 (rounds up); max 499990 × 11600 bp = 579988.4 → 579988 (rounds down)
    let own: Awaited<ReturnType<typeof partnerWithPlans>>

    beforeAll(async () => {
      own = await partnerWithPlans(ctx, [TOTAL_12X, { ...ANNUAL, annualRateBp: 1000 }])
      await setLmiFactors(ctx.db, own.partner.id, 3333, 11_600)
    })

    it.each([
      ['exactly the minimum', '1666.47', 1666.47, 20], // 166647 × 120 bp = 1999.764 → 2000
      ['a cent below the minimum', '1666.46', 4999.9, 60], // 499990 × 120 bp = 5999.88 → 6000
      ['above the default, inside', '5500', 5500, 66], // 550000 × 120 bp = 6600
      ['exactly the maximum', '5799.88', 5799.88, 69.6], // 579988 × 120 bp = 6959.856 → 6960
      ['a cent above the maximum', '5799.89', 4999.9, 60],
    ])('maxima %s (%s) → LMI %s, premium %s', async (_label, maxima, lmi, premium) => {
      const url = `/plans/${own.plans[0]?.id}/quotation?model_id=${iphone15}&maxima=${maxima}`
      expect(await okJson<SubscriptionQuote>(ctx, own.token, url)).toMatchObject({
        lmi,
        monthly_premium: premium,
      })
    })

    it('bounds the annual quote too', async () => {
      const url = `/annual-plans/quote?model_id=${iphone15}`
      // 579988 × 1000 bp = 57998.8 → 57999
      expect(await okJson<AnnualQuote>(ctx, own.token, `${url}&maxima=5799.88`)).toMatchObject({
        lmi: 5799.88,
        premium: 579.99,
      })
      // 499990 × 1000 bp = 49999
      expect(await okJson<AnnualQuote>(ctx, own.token, `${url}&maxima=5799.89`)).toMatchObject({
        lmi: 4999.9,
        premium: 499.99,
      })
    })

    it('follows a change of the factors at once', async () => {
      const other = await partnerWithPlans(ctx, [TOTAL_12X])
      const url = `/quotation?model_id=${iphone15}&maxima=5500`
      expect((await okJson<SubscriptionQuotes>(ctx, other.token, url)).plans[0]?.lmi).toBe(4999.9)
      await setLmiFactors(ctx.db, other.partner.id, 5000, 12_000)
      expect((await okJson<SubscriptionQuotes>(ctx, other.token, url)).plans[0]?.lmi).toBe(5500)
    })
  })

  describe('authentication', () => {
    it.each([
      '/plans',
      '/quotation?model_id=1',
      '/quotation?model_id=abc',
      '/plans/1/quotation?model_id=1',
      '/annual-plans/quote?model_id=1',
    ])('GET %s without a token answers 401', async (url) => {
      const response = await get(ctx, null, url)
      expect(response.statusCode).toBe(401)
      expect(response.json()).toEqual(
        expectedError(response, 'unauthenticated', { message: 'Unauthenticated.' }),
      )
      expect(response.headers['www-authenticate']).toBe('Bearer')
    })

    it('refuses an invalid token', async () => {
      const response = await get(ctx, 'not-a-jwt', `/quotation?model_id=${pro}`)
      expect(response.statusCode).toBe(401)
    })
  })
})
