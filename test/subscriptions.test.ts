import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PartnerContext } from '../src/modules/auth/partner-context.js'
import { eventContext } from '../src/modules/events/event.service.js'
import { contractSubscription } from '../src/modules/subscriptions/subscription.service.js'
import { ADDRESS, type ErrorBody, type PageBody, uniqueImei } from './helpers/bodies.js'
import { bare, cpfOf, formatCpf } from './helpers/documents.js'
import { expectedError } from './helpers/errors.js'
import { bearer, login, partnerWithToken, seedCatalog, type TestPartner } from './helpers/factories.js'
import { ANNUAL, COVERAGES, ESSENCIAL_24X, type PlanTemplate, seedPlans, TOTAL_12X } from './helpers/plans.js'
import { createTestApp, type TestContext } from './helpers/test-app.js'

// Expected amounts are worked out by hand in cents: LMI (cents) × rate (bp) ÷ 10000, half-up.

interface Link {
  link: string
}
interface BrandBody {
  id: number
  name: string
  meta: Link
}
interface ModelBody {
  id: number
  name: string
  brand: BrandBody
  meta: Link
}
interface CustomerBody {
  id: number
  name: string
  document: string
  email: string
  phone: string
  address: Record<string, string | number | null> | null
  created_at: string
}
interface SubscriptionBody {
  id: number
  status: string
  plan: { id: number; name: string; coverages: string[] }
  customer: CustomerBody
  device: ModelBody & { serial_number: string | null; second_serial_number: string | null; is_used: boolean }
  model: ModelBody
  valor: number
  franchise: number
  lmi: number
  installments_count: number
  store_id: number | null
  metadata: { origin: string | null }
  created_at: string
}
interface InstallmentBody {
  id: number
  number: number
  amount: number
  due_date: string
  status: string
  status_label: string
  paid_at: string | null
}
interface QuoteItem {
  id: number
  name: string
  monthly_premium: number
  lmi: number
  installments: number
}
type Json = Record<string, unknown>

// 15:04:05 UTC is 12:04:05 in São Paulo (UTC−3 all year since 2019).
const NOW = new Date('2026-11-21T15:04:05.000Z')
const CREATED_AT = '2026-11-21 12:04:05'

const PLAN_INVALID = 'The selected plan id is invalid.'
const MODEL_INVALID = 'The selected model id is invalid.'
const CUSTOMER_INVALID = 'The selected customer id is invalid.'
const CUSTOMER_REQUIRED = 'The customer id field is required when customer document is not present.'
const CUSTOMER_DOCUMENT_UNKNOWN =
  'No customer of this partner has this document: register it with POST /customers.'
const STORE_INVALID = 'The selected store id is invalid.'
const SERIALS_EQUAL = 'The second serial number and serial number must be different.'
const MAXIMA_DECIMALS = 'The maxima field must have at most 2 decimal places.'

const MARIA = '529.982.247-25'
const JOAO = formatCpf(cpfOf('123456789'))
const CARLA = formatCpf(cpfOf('111444777'))
const EMPRESA = '11.222.333/0001-81'
const ALNUM = '12.ABC.345/01DE-35'
const ALNUM_LOWER = '12abc34501de35'

let ctx: TestContext
/** The injected clock reads this; tests that move it put it back. */
let now = NOW
let catalog: Awaited<ReturnType<typeof seedCatalog>>
/** iPhone 16 Pro: default LMI R$ 8,999.00 = 899900 cents; range 0.5–1.0 → [449950, 899900]. */
let pro: number
/** The address the app answers on (inject sends `Host: localhost:80`). */
let base: string

function call(method: 'GET' | 'POST', url: string, token: string | null, payload?: unknown) {
  return ctx.app.inject({
    method,
    url,
    headers: token ? bearer(token) : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  })
}

async function okJson<T>(token: string, url: string): Promise<T> {
  const response = await call('GET', url, token)
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200)
  return response.json() as T
}

async function contract(token: string, payload: Json): Promise<SubscriptionBody> {
  const response = await call('POST', '/subscriptions', token, payload)
  expect(response.statusCode, response.body).toBe(201)
  return response.json() as SubscriptionBody
}

/** The 422's `errors`, after checking the Laravel message is the first error's text. */
async function refused(token: string, payload: Json): Promise<Record<string, string[]>> {
  const response = await call('POST', '/subscriptions', token, payload)
  expect(response.statusCode, response.body).toBe(422)
  const body = response.json() as ErrorBody
  const errors = body.errors ?? {}
  expect(Object.keys(errors).length).toBeGreaterThan(0)
  expect(body.message.startsWith(Object.values(errors)[0]?.[0] ?? '')).toBe(true)
  return errors
}

async function expect404(token: string, url: string) {
  const response = await call('GET', url, token)
  expect(response.statusCode, `${url}: ${response.body}`).toBe(404)
  expect(response.json()).toEqual(expectedError(response, 'not_found', { message: expect.any(String) }))
}

async function installmentsOf(token: string, id: number): Promise<InstallmentBody[]> {
  return okJson<InstallmentBody[]>(token, `/subscriptions/${id}/installments`)
}

async function quote(token: string, planId: number, modelId: number, maxima?: number | string) {
  const query = maxima === undefined ? '' : `&maxima=${maxima}`
  return okJson<QuoteItem>(token, `/plans/${planId}/quotation?model_id=${modelId}${query}`)
}

async function addCustomer(token: string, document: string, extra: Json = {}): Promise<CustomerBody> {
  const response = await call('POST', '/customers', token, {
    name: 'Cliente Teste',
    document,
    email: 'cliente@example.com',
    phone: '(11) 98765-4321',
    ...extra,
  })
  expect(response.statusCode, response.body).toBe(201)
  return response.json() as CustomerBody
}

interface Seller {
  partner: TestPartner
  token: string
  plans: { id: number }[]
  matrix: number
}

/** A partner of its own with the given plans and its matrix store's id (from `GET /shopkeepers`). */
async function seller(plans: PlanTemplate[]): Promise<Seller> {
  const { partner, token } = await partnerWithToken(ctx.app, ctx.db)
  const rows = await seedPlans(ctx.db, partner.id, plans, NOW.toISOString())
  const stores = await okJson<PageBody<{ id: number; matrix: boolean }>>(token, '/shopkeepers')
  const matrix = stores.data.find((store) => store.matrix)
  expect(matrix).toBeDefined()
  return { partner, token, plans: rows, matrix: matrix?.id ?? 0 }
}

/** Runs `fn` with the clock at `iso` and a token issued then; puts the clock back afterwards. */
async function at<T>(iso: string, partner: TestPartner, fn: (token: string) => Promise<T>): Promise<T> {
  now = new Date(iso)
  try {
    return await fn(await login(ctx.app, partner))
  } finally {
    now = NOW
  }
}

async function countRows(table: 'subscriptions' | 'installments'): Promise<number> {
  const row = await ctx.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

beforeAll(async () => {
  ctx = await createTestApp({ clock: { now: () => now } })
  await ctx.app.ready()
  catalog = await seedCatalog(ctx.db)
  pro = catalog.model('iPhone 16 Pro').id
})
afterAll(() => ctx?.close())

describe('subscriptions', () => {
  /** Partner A: plans 12x, 24x, annual, and an inactive 12x. */
  let a: Seller
  /** Partner B: one 12x plan of its own (150 bp). */
  let b: Seller
  let total: number
  let essencial: number
  let annual: number
  let inactive: number
  let otherPlan: number
  let maria: CustomerBody
  let joao: CustomerBody
  let empresa: CustomerBody
  let alnum: CustomerBody
  /** B's customers: the same CPF as A's Maria, and one A does not have. */
  let mariaOfB: CustomerBody
  let carlaOfB: CustomerBody
  let subscriptionOfB: SubscriptionBody
  /** Every subscription of B, oldest first. */
  const subscriptionsOfB: number[] = []

  const brandOf = (modelName: string): BrandBody => {
    const row = catalog.model(modelName)
    return { id: row.brand_id, name: row.brand, meta: { link: `${base}/brands/${row.brand_id}` } }
  }
  const modelOf = (modelName: string): ModelBody => {
    const row = catalog.model(modelName)
    return {
      id: row.id,
      name: row.name,
      brand: brandOf(modelName),
      meta: { link: `${base}/models/${row.id}` },
    }
  }
  const minimal = (extra: Json = {}): Json => ({
    plan_id: total,
    customer_id: maria.id,
    model_id: pro,
    ...extra,
  })

  beforeAll(async () => {
    a = await seller([TOTAL_12X, ESSENCIAL_24X, ANNUAL, { ...TOTAL_12X, name: 'Antigo 12x' }])
    ;[total, essencial, annual, inactive] = a.plans.map((plan) => plan.id) as [number, number, number, number]
    await ctx.db.updateTable('plans').set({ active: false }).where('id', '=', inactive).execute()
    b = await seller([{ ...TOTAL_12X, name: 'Plano B', monthlyRateBp: 150 }])
    otherPlan = b.plans[0]?.id as number

    const stores = await okJson<PageBody<unknown>>(a.token, '/shopkeepers')
    base = stores.meta.path.replace(/\/shopkeepers$/, '')

    maria = await addCustomer(a.token, MARIA, { name: 'Maria da Silva', address: ADDRESS })
    joao = await addCustomer(a.token, JOAO, { name: 'João Souza' })
    empresa = await addCustomer(a.token, EMPRESA, { name: 'Empresa Ltda' })
    alnum = await addCustomer(a.token, ALNUM, { name: 'Empresa Alfanumérica' })
    mariaOfB = await addCustomer(b.token, MARIA, { name: 'Maria (B)' })
    carlaOfB = await addCustomer(b.token, CARLA, { name: 'Carla (B)' })
    subscriptionOfB = await contract(b.token, { plan_id: otherPlan, customer_id: mariaOfB.id, model_id: pro })
    subscriptionsOfB.push(subscriptionOfB.id)
  })

  describe('POST /subscriptions', () => {
    it('answers 201 with the full union resource, priced as the quotation for the same inputs', async () => {
      const maxima = 6543.21
      const quoted = await quote(a.token, total, pro, maxima)
      const created = await contract(a.token, {
        plan_id: total,
        customer_id: maria.id,
        model_id: pro,
        serial_number: '490154203237518',
        second_serial_number: '356938035643809',
        is_used: false,
        store_id: a.matrix,
        maxima,
        metadata: { origin: 'pdv-loja-centro' },
      })
      expect(created).toEqual({
        id: expect.any(Number),
        status: 'pending',
        card: null,
        plan: { id: total, name: 'Proteção Total 12x', coverages: COVERAGES },
        customer: maria,
        device: {
          ...modelOf('iPhone 16 Pro'),
          serial_number: '490154203237518',
          second_serial_number: '356938035643809',
          is_used: false,
        },
        model: modelOf('iPhone 16 Pro'),
        valor: quoted.monthly_premium,
        // 654321 × 1500 bp = 98148.15 → 98148
        franchise: 981.48,
        lmi: quoted.lmi,
        installments_count: quoted.installments,
        store_id: a.matrix,
        metadata: { origin: 'pdv-loja-centro' },
        cancellation: null,
        created_at: CREATED_AT,
        updated_at: CREATED_AT,
      })
      // The quotation itself, by hand: 654321 × 120 bp = 7851.852 → 7852.
      expect(quoted).toMatchObject({ monthly_premium: 78.52, lmi: 6543.21, installments: 12 })
      expect(Object.keys(created)).toEqual([
        'id',
        'status',
        'plan',
        'customer',
        'device',
        'model',
        'valor',
        'franchise',
        'lmi',
        'installments_count',
        'store_id',
        'metadata',
        'card',
        'cancellation',
        'created_at',
        'updated_at',
      ])
      expect(Object.keys(created.device)).toEqual([
        'id',
        'name',
        'brand',
        'meta',
        'serial_number',
        'second_serial_number',
        'is_used',
      ])
      expect(created.customer.address).toEqual({ ...ADDRESS, zipcode: '01310100' })
      // What was stored is what is shown.
      expect(await okJson(a.token, `/subscriptions/${created.id}`)).toEqual(created)
    })

    it('answers exactly what GET then shows, whatever the inputs (the answer is not read back)', async () => {
      const bodies: Json[] = [
        minimal(),
        minimal({ customer_id: undefined, customer_document: JOAO, is_used: true, store_id: a.matrix }),
        minimal({ customer_id: empresa.id, plan_id: essencial, used: true, maxima: 4000 }),
        minimal({ customer_id: alnum.id, serial_number: '  ab1  ', second_serial_number: ' ', metadata: {} }),
        minimal({ serial_number: null, metadata: { origin: '  pdv-2  ' } }),
      ]
      for (const body of bodies) {
        const created = await contract(a.token, body)
        expect(await okJson(a.token, `/subscriptions/${created.id}`), JSON.stringify(body)).toEqual(created)
      }
    })

    it('prices at the default LMI without maxima, franchise included', async () => {
      const quoted = await quote(a.token, total, pro)
      const created = await contract(a.token, minimal())
      // 899900 × 120 bp = 10798.8 → 10799; 899900 × 1500 bp = 134985
      expect(quoted).toMatchObject({ monthly_premium: 107.99, lmi: 8999 })
      expect(created).toMatchObject({
        valor: quoted.monthly_premium,
        lmi: quoted.lmi,
        franchise: 1349.85,
        installments_count: 12,
        store_id: null,
        metadata: { origin: null },
        device: { serial_number: null, second_serial_number: null, is_used: false },
      })
    })

    it('prices another plan and model like its quotation', async () => {
      const s25 = catalog.model('Galaxy S25').id
      const quoted = await quote(a.token, essencial, s25, 4000)
      const created = await contract(a.token, minimal({ plan_id: essencial, model_id: s25, maxima: 4000 }))
      // Galaxy S25: 649900, range [324950, 649900]; 400000 × 100 bp = 4000; × 2000 bp = 80000
      expect(quoted).toMatchObject({ monthly_premium: 40, lmi: 4000, installments: 24 })
      expect(created).toMatchObject({
        plan: { id: essencial, name: 'Proteção Essencial 24x', coverages: COVERAGES.slice(0, 2) },
        device: { id: s25, name: 'Galaxy S25', brand: brandOf('Galaxy S25') },
        model: modelOf('Galaxy S25'),
        valor: quoted.monthly_premium,
        lmi: quoted.lmi,
        franchise: 800,
        installments_count: 24,
      })
    })

    it('rounds the franchise half-up to the cent', async () => {
      // 450030 × 1500 bp = 67504.5 → 67505 (half-even would give 67504); 450030 × 120 bp = 5400.36 → 5400
      const created = await contract(a.token, minimal({ maxima: 4500.3 }))
      expect(created).toMatchObject({ lmi: 4500.3, valor: 54, franchise: 675.05 })
      expect(await quote(a.token, total, pro, 4500.3)).toMatchObject({ monthly_premium: 54, lmi: 4500.3 })
    })

    describe('the customer', () => {
      it.each([
        ['formatted', MARIA],
        ['bare', bare(MARIA)],
      ])('is found by a %s customer_document', async (_label, document) => {
        const created = await contract(
          a.token,
          minimal({ customer_id: undefined, customer_document: document }),
        )
        expect(created.customer).toEqual(maria)
      })

      it('is found by a formatted CNPJ', async () => {
        const created = await contract(
          a.token,
          minimal({ customer_id: undefined, customer_document: EMPRESA }),
        )
        expect(created.customer).toMatchObject({ id: empresa.id, document: '11222333000181' })
      })

      it('is found by an alphanumeric CNPJ sent in lowercase, bare', async () => {
        const created = await contract(
          a.token,
          minimal({ customer_id: undefined, customer_document: ALNUM_LOWER }),
        )
        expect(created.customer).toEqual(alnum)
        expect(alnum.document).toBe('12ABC34501DE35')
      })

      it('sent both by id and by document, they must name the same customer', async () => {
        const created = await contract(a.token, minimal({ customer_id: maria.id, customer_document: MARIA }))
        expect(created.customer.id).toBe(maria.id)
        expect(await refused(a.token, minimal({ customer_id: joao.id, customer_document: MARIA }))).toEqual({
          customer_document: ['The customer document does not match the selected customer id.'],
        })
      })

      it('is required: neither id nor document → 422 errors.customer_id', async () => {
        const errors = await refused(a.token, minimal({ customer_id: undefined }))
        expect(errors).toEqual({ customer_id: [CUSTOMER_REQUIRED] })
      })

      it.each([
        ['unknown', () => 987_654],
        ["another partner's", () => mariaOfB.id],
        ["another partner's, whose CPF this partner also has", () => carlaOfB.id],
      ])('refuses an %s customer_id with 422', async (_label, id) => {
        expect(await refused(a.token, minimal({ customer_id: id() }))).toEqual({
          customer_id: [CUSTOMER_INVALID],
        })
      })

      it("refuses a document no customer of this partner has (another partner's customer) with 422", async () => {
        for (const document of [CARLA, bare(CARLA), formatCpf(cpfOf('999888777'))]) {
          expect(
            await refused(a.token, minimal({ customer_id: undefined, customer_document: document })),
          ).toEqual({ customer_document: [CUSTOMER_DOCUMENT_UNKNOWN] })
        }
      })

      it('refuses an invalid document with 422', async () => {
        const errors = await refused(
          a.token,
          minimal({ customer_id: undefined, customer_document: '123.456.789-00' }),
        )
        expect(Object.keys(errors)).toEqual(['customer_document'])
      })

      it('refuses a customer_id that is not an integer', async () => {
        for (const customerId of [String(maria.id), 0, 1.5]) {
          expect(Object.keys(await refused(a.token, minimal({ customer_id: customerId })))).toEqual([
            'customer_id',
          ])
        }
      })
    })

    describe('the plan and the model', () => {
      it.each([
        ["another partner's plan", () => otherPlan],
        ['an annual plan', () => annual],
        ['an inactive plan', () => inactive],
        ['an unknown plan', () => 987_654],
      ])('refuses %s with 422 errors.plan_id', async (_label, id) => {
        expect(await refused(a.token, minimal({ plan_id: id() }))).toEqual({ plan_id: [PLAN_INVALID] })
      })

      it('refuses an inactive or unknown model with 422 errors.model_id', async () => {
        for (const id of [catalog.model('iPhone 12').id, catalog.model('3310').id, 987_654]) {
          expect(await refused(a.token, minimal({ model_id: id }))).toEqual({ model_id: [MODEL_INVALID] })
        }
      })

      it('refuses a model marked unavailable for this partner only', async () => {
        const a15 = catalog.model('Galaxy A15').id
        const setUnavailable = (unavailable: boolean) =>
          ctx.db
            .updateTable('partner_models')
            .set({ unavailable })
            .where('partner_id', '=', a.partner.id)
            .where('model_id', '=', a15)
            .execute()
        await setUnavailable(true)
        try {
          expect(await refused(a.token, minimal({ model_id: a15 }))).toEqual({ model_id: [MODEL_INVALID] })
          // B still sells it: the mark is per partner.
          const ofB = await contract(b.token, { plan_id: otherPlan, customer_id: mariaOfB.id, model_id: a15 })
          subscriptionsOfB.push(ofB.id)
        } finally {
          await setUnavailable(false)
        }
        expect((await contract(a.token, minimal({ model_id: a15 }))).model.id).toBe(a15)
      })

      it('reports every invalid reference at once, without writing anything', async () => {
        const before = await countRows('subscriptions')
        const errors = await refused(a.token, {
          plan_id: otherPlan,
          customer_id: mariaOfB.id,
          model_id: 987_654,
          store_id: b.matrix,
          serial_number: 'X',
          second_serial_number: 'x',
        })
        expect(errors).toEqual({
          plan_id: [PLAN_INVALID],
          customer_id: [CUSTOMER_INVALID],
          model_id: [MODEL_INVALID],
          store_id: [STORE_INVALID],
          second_serial_number: [SERIALS_EQUAL],
        })
        expect(await countRows('subscriptions')).toBe(before)
      })

      it.each([
        ['plan_id', { plan_id: '5' }],
        ['model_id', { model_id: String(1) }],
        ['store_id', { store_id: '1' }],
        ['maxima', { maxima: '4500' }],
        ['is_used', { is_used: 'true' }],
        ['used', { used: 1 }],
        ['serial_number', { serial_number: 490154203237518 }],
        ['metadata', { metadata: 'pdv' }],
      ])('is strict about body types: a wrong-typed %s → 422 under its key', async (key, extra) => {
        expect(Object.keys(await refused(a.token, minimal(extra)))).toEqual([key])
      })

      it('requires plan_id and model_id', async () => {
        const errors = await refused(a.token, { customer_id: maria.id })
        expect(errors).toEqual({
          plan_id: ['The plan id field is required.'],
          model_id: ['The model id field is required.'],
        })
      })
    })

    describe('optional fields sent as null', () => {
      it('count as not sent: the same subscription as without them', async () => {
        const withNulls = await contract(
          a.token,
          minimal({
            customer_id: null,
            customer_document: MARIA,
            store_id: null,
            maxima: null,
            is_used: null,
            used: null,
          }),
        )
        const without = await contract(a.token, minimal())
        const { id: _a, created_at: _b, ...shown } = withNulls
        const { id: _c, created_at: _d, ...expected } = without
        expect(shown).toEqual(expected)
        expect(shown).toMatchObject({ customer: { id: maria.id }, store_id: null, lmi: 8999 })
        expect(shown.device.is_used).toBe(false)
      })

      it('still require a customer: both null → 422 errors.customer_id', async () => {
        const errors = await refused(a.token, minimal({ customer_id: null, customer_document: null }))
        expect(errors).toEqual({ customer_id: [CUSTOMER_REQUIRED] })
      })

      it('leave the required ones required: model_id null → 422', async () => {
        const response = await call('POST', '/subscriptions', a.token, minimal({ model_id: null }))
        expect(response.statusCode, response.body).toBe(422)
        expect(Object.keys(response.json().errors)).toEqual(['model_id'])
      })
    })

    describe('the store', () => {
      it("accepts this partner's matrix store (from GET /shopkeepers)", async () => {
        const created = await contract(a.token, minimal({ store_id: a.matrix }))
        expect(created.store_id).toBe(a.matrix)
      })

      it("refuses another partner's store or an unknown one with 422 errors.store_id", async () => {
        for (const storeId of [b.matrix, 987_654]) {
          expect(await refused(a.token, minimal({ store_id: storeId }))).toEqual({
            store_id: [STORE_INVALID],
          })
        }
      })
    })

    describe('the serials', () => {
      it.each([
        ['equal', '490154203237518', '490154203237518'],
        ['differing only in case', 'abc123xyz', 'ABC123XYZ'],
        ['differing only in surrounding blanks', ' ABC123 ', 'ABC123'],
      ])('refuses serials %s with 422 errors.second_serial_number', async (_label, first, second) => {
        const errors = await refused(a.token, minimal({ serial_number: first, second_serial_number: second }))
        expect(errors).toEqual({ second_serial_number: [SERIALS_EQUAL] })
      })

      it('accepts different serials, trimmed, and blank or null ones as none', async () => {
        const [first, second] = [uniqueImei(), uniqueImei()]
        const created = await contract(
          a.token,
          minimal({ serial_number: `  ${first} `, second_serial_number: second }),
        )
        expect(created.device).toMatchObject({ serial_number: first, second_serial_number: second })
        const blank = await contract(a.token, minimal({ serial_number: '   ', second_serial_number: '   ' }))
        expect(blank.device).toMatchObject({ serial_number: null, second_serial_number: null })
        const nulls = await contract(a.token, minimal({ serial_number: null, second_serial_number: null }))
        expect(nulls.device).toMatchObject({ serial_number: null, second_serial_number: null })
        const third = uniqueImei()
        const onlySecond = await contract(a.token, minimal({ second_serial_number: third }))
        expect(onlySecond.device).toMatchObject({ serial_number: null, second_serial_number: third })
      })

      it('refuses a serial over 50 characters', async () => {
        expect(Object.keys(await refused(a.token, minimal({ serial_number: 'X'.repeat(51) })))).toEqual([
          'serial_number',
        ])
      })
    })

    describe('the used-device flag', () => {
      it.each([
        ['is_used: true', true, { is_used: true }],
        ['used: true', true, { used: true }],
        ['is_used: false', false, { is_used: false }],
        ['used: false', false, { used: false }],
        ['neither', false, {}],
        ['is_used: true, used: true', true, { is_used: true, used: true }],
        ['is_used: false, used: null', false, { is_used: false, used: null }],
      ])('%s → device.is_used %s', async (_label, expected, extra) => {
        const created = await contract(a.token, minimal(extra))
        expect(created.device.is_used).toBe(expected)
        expect((await okJson<SubscriptionBody>(a.token, `/subscriptions/${created.id}`)).device.is_used).toBe(
          expected,
        )
      })

      it.each([
        { is_used: false, used: true },
        { is_used: true, used: false },
      ])('refuses %o: the flag and its alias disagree', async (extra) => {
        expect(await refused(a.token, minimal(extra))).toEqual({
          is_used: ['The is used field and its alias used must agree.'],
        })
      })

      it('does not change the price of a subscription', async () => {
        const created = await contract(a.token, minimal({ used: true }))
        expect(created).toMatchObject({ valor: 107.99, lmi: 8999, franchise: 1349.85 })
      })
    })

    describe('metadata.origin', () => {
      it('accepts 100 characters and keeps them', async () => {
        const origin = 'o'.repeat(100)
        const created = await contract(a.token, minimal({ metadata: { origin } }))
        expect(created.metadata).toEqual({ origin })
      })

      it('counts characters, not UTF-16 units: 100 emoji are 100 characters', async () => {
        const origin = '😀'.repeat(100)
        expect((await contract(a.token, minimal({ metadata: { origin } }))).metadata).toEqual({ origin })
        const errors = await refused(a.token, minimal({ metadata: { origin: `${origin}😀` } }))
        expect(Object.keys(errors)).toEqual(['metadata.origin'])
      })

      it("refuses 101 characters with 422 errors['metadata.origin']", async () => {
        const errors = await refused(a.token, minimal({ metadata: { origin: 'o'.repeat(101) } }))
        expect(Object.keys(errors)).toEqual(['metadata.origin'])
        expect(errors['metadata.origin']?.[0]).toContain('100')
      })

      it('answers origin null for no metadata, an empty one, a null origin or a blank one', async () => {
        for (const metadata of [undefined, {}, { origin: null }, { origin: '   ' }]) {
          const created = await contract(a.token, minimal({ metadata }))
          expect(created.metadata).toEqual({ origin: null })
        }
      })
    })

    describe('maxima', () => {
      it.each([
        ['inside the range', 5000, 5000, 60], // 500000 × 120 bp = 6000
        ['exactly the minimum', 4499.5, 4499.5, 53.99], // 449950 × 120 bp = 5399.4 → 5399
        ['exactly the maximum', 8999, 8999, 107.99],
        ['a cent below the minimum', 4499.49, 8999, 107.99],
        ['a cent above the maximum', 8999.01, 8999, 107.99],
        ['zero', 0, 8999, 107.99],
        ['negative', -5000, 8999, 107.99],
        ['huge', 1e300, 8999, 107.99],
      ])('%s (%s) → LMI %s, valor %s, as the quotation', async (_label, maxima, lmi, valor) => {
        const created = await contract(a.token, minimal({ maxima }))
        expect(created).toMatchObject({ lmi, valor })
        if (Math.abs(maxima) < 1e12) {
          expect(await quote(a.token, total, pro, maxima)).toMatchObject({ lmi, monthly_premium: valor })
        }
      })

      it('refuses more than two decimals with 422 errors.maxima', async () => {
        expect(await refused(a.token, minimal({ maxima: 1.005 }))).toEqual({ maxima: [MAXIMA_DECIMALS] })
        expect(await refused(a.token, minimal({ maxima: 5000.001 }))).toEqual({ maxima: [MAXIMA_DECIMALS] })
      })
    })

    it('never lets fields that are not inputs take effect', async () => {
      const created = await contract(
        a.token,
        minimal({
          status: 'pago',
          lmi: 1,
          valor: 1,
          franchise: 1,
          monthly_premium: 1,
          id: 999,
          partner_id: b.partner.id,
          installments_count: 99,
          created_at: '2000-01-01 00:00:00',
          card_token: 'tok_x',
          installments: [{ number: 1, amount: 1, status: 'paid' }],
        }),
      )
      expect(created).toMatchObject({
        status: 'pending',
        lmi: 8999,
        valor: 107.99,
        franchise: 1349.85,
        installments_count: 12,
        created_at: CREATED_AT,
      })
      expect(created.id).not.toBe(999)
      const row = await ctx.db
        .selectFrom('subscriptions')
        .select([
          'partner_id',
          'status',
          'lmi',
          'monthly_premium',
          'franchise',
          'installments_count',
          'card_token',
        ])
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow()
      expect(row).toEqual({
        partner_id: a.partner.id,
        status: 'pending',
        lmi: 899_900,
        monthly_premium: 10_799,
        franchise: 134_985,
        installments_count: 12,
        card_token: null,
      })
      expect(
        await ctx.db.selectFrom('subscriptions').select('id').where('id', '=', 999).executeTakeFirst(),
      ).toBe(undefined)
      const installments = await installmentsOf(a.token, created.id)
      expect(installments).toHaveLength(12)
      expect(installments.every((i) => i.status === 'pending' && i.amount === 107.99)).toBe(true)
      await expect404(b.token, `/subscriptions/${created.id}`)
    })
  })

  describe('installments', () => {
    const DUE_FROM_2026_01_31 = [
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
      '2026-06-30',
      '2026-07-31',
      '2026-08-31',
      '2026-09-30',
      '2026-10-31',
      '2026-11-30',
      '2026-12-31',
    ]

    it('are created with the subscription: one per plan installment, each the monthly premium, pending', async () => {
      const created = await contract(a.token, minimal({ maxima: 6543.21 }))
      const installments = await installmentsOf(a.token, created.id)
      expect(installments).toHaveLength(created.installments_count)
      expect(installments.map((i) => i.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
      for (const installment of installments) {
        expect(installment).toEqual({
          id: expect.any(Number),
          number: installment.number,
          amount: created.valor,
          due_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          status: 'pending',
          status_label: 'Pendente',
          paid_at: null,
          subscription_id: created.id,
          attempts: 0,
          last_decline_code: null,
          // No card on file: nothing will charge it (external gateway).
          next_attempt_on: null,
        })
        expect(Object.keys(installment)).toEqual([
          'id',
          'number',
          'amount',
          'due_date',
          'status',
          'status_label',
          'paid_at',
          'subscription_id',
          'attempts',
          'last_decline_code',
          'next_attempt_on',
        ])
      }
      expect(installments[0]?.amount).toBe(78.52)
      // Created on 2026-11-21 (São Paulo): one month apart from that day.
      expect(installments.map((i) => i.due_date).slice(0, 3)).toEqual([
        '2026-11-21',
        '2026-12-21',
        '2027-01-21',
      ])
      expect(installments[11]?.due_date).toBe('2027-10-21')
    })

    it('have ids unique across subscriptions', async () => {
      const first = await installmentsOf(a.token, (await contract(a.token, minimal())).id)
      const second = await installmentsOf(a.token, (await contract(a.token, minimal())).id)
      const ids = [...first, ...second].map((i) => i.id)
      expect(new Set(ids).size).toBe(24)
    })

    it('fall due one month apart from 31 January, clamped to the month end and never drifting', async () => {
      await at('2026-01-31T15:00:00Z', a.partner, async (token) => {
        const created = await contract(token, minimal())
        expect(created.created_at).toBe('2026-01-31 12:00:00')
        const installments = await installmentsOf(token, created.id)
        expect(installments.map((i) => i.due_date)).toEqual(DUE_FROM_2026_01_31)
      })
    })

    it('fall on 29 February in a leap year', async () => {
      await at('2028-01-31T15:00:00Z', a.partner, async (token) => {
        const created = await contract(token, minimal())
        const dates = (await installmentsOf(token, created.id)).map((i) => i.due_date)
        expect(dates.slice(0, 4)).toEqual(['2028-01-31', '2028-02-29', '2028-03-31', '2028-04-30'])
      })
    })

    it('follow a 24-installment plan into the second year', async () => {
      await at('2026-01-31T15:00:00Z', a.partner, async (token) => {
        const created = await contract(token, minimal({ plan_id: essencial }))
        const installments = await installmentsOf(token, created.id)
        expect(installments).toHaveLength(24)
        expect(installments.map((i) => i.due_date)).toEqual([
          ...DUE_FROM_2026_01_31,
          ...DUE_FROM_2026_01_31.map((date) => date.replace('2026', '2027')),
        ])
        // 899900 × 100 bp = 8999
        expect(installments.every((i) => i.amount === 89.99)).toBe(true)
      })
    })

    it('count from the São Paulo date: 02:30 UTC on 1 February is still 31 January there', async () => {
      await at('2026-02-01T02:30:00Z', a.partner, async (token) => {
        const created = await contract(token, minimal())
        expect(created.created_at).toBe('2026-01-31 23:30:00')
        const dates = (await installmentsOf(token, created.id)).map((i) => i.due_date)
        expect(dates).toEqual(DUE_FROM_2026_01_31)
      })
    })

    it('count from the São Paulo date: 03:00 UTC on 1 February is 1 February there', async () => {
      await at('2026-02-01T03:00:00Z', a.partner, async (token) => {
        const created = await contract(token, minimal())
        expect(created.created_at).toBe('2026-02-01 00:00:00')
        const dates = (await installmentsOf(token, created.id)).map((i) => i.due_date)
        expect(dates.slice(0, 3)).toEqual(['2026-02-01', '2026-03-01', '2026-04-01'])
      })
    })

    describe('atomicity', () => {
      it("are written in the caller's transaction: a rollback leaves neither subscription nor installments", async () => {
        const subscriptions = await countRows('subscriptions')
        const installments = await countRows('installments')
        const partner: PartnerContext = {
          partnerId: a.partner.id,
          gateway: 'external',
          lmiMinFactorBp: 5000,
          lmiMaxFactorBp: 10_000,
        }
        let seen = { id: 0, installments: 0 }
        await expect(
          ctx.db.transaction().execute(async (trx) => {
            const { id } = await contractSubscription(
              trx,
              partner,
              { plan_id: total, customer_id: maria.id, model_id: pro },
              { now: NOW.toISOString(), realNow: NOW.toISOString(), timeZone: ctx.config.timeZone },
              eventContext(ctx.config),
              eventContext(ctx.config).base,
            )
            const row = await trx
              .selectFrom('installments')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('subscription_id', '=', id)
              .executeTakeFirstOrThrow()
            seen = { id, installments: Number(row.n) }
            throw new Error('boom')
          }),
        ).rejects.toThrow('boom')
        // Inside the transaction both were there…
        expect(seen.id).toBeGreaterThan(0)
        expect(seen.installments).toBe(12)
        // …and the rollback took both away.
        expect(await countRows('subscriptions')).toBe(subscriptions)
        expect(await countRows('installments')).toBe(installments)
        expect(
          await ctx.db.selectFrom('subscriptions').select('id').where('id', '=', seen.id).executeTakeFirst(),
        ).toBeUndefined()
      })

      it('a failing installments insert leaves no subscription behind (500, nothing written)', async () => {
        // A partial unique index on the amount of this test only (4567.89 × 120 bp = 5481.468 → 5481
        // cents) makes the second installment of the insert collide, on SQLite and PostgreSQL alike.
        await ctx.db.schema
          .createIndex('test_installments_fail_idx')
          .on('installments')
          .column('amount')
          .unique()
          .where(sql.ref('amount'), '=', sql.lit(5481))
          .execute()
        const subscriptions = await countRows('subscriptions')
        const installments = await countRows('installments')
        try {
          const response = await call('POST', '/subscriptions', a.token, minimal({ maxima: 4567.89 }))
          expect(response.statusCode, response.body).toBe(500)
          expect(response.json()).toEqual(
            expectedError(response, 'server_error', { message: 'Server error.' }),
          )
          expect(await countRows('subscriptions')).toBe(subscriptions)
          expect(await countRows('installments')).toBe(installments)
        } finally {
          await ctx.db.schema.dropIndex('test_installments_fail_idx').execute()
        }
        // Without the obstacle the same body is contracted, with its 12 installments.
        const created = await contract(a.token, minimal({ maxima: 4567.89 }))
        expect(created.valor).toBe(54.81)
        expect(await installmentsOf(a.token, created.id)).toHaveLength(12)
      })
    })
  })

  describe('reading', () => {
    /** Partner C, on its own so that its list is exactly what these tests made. */
    let c: Seller
    let cMaria: CustomerBody
    let cJoao: CustomerBody
    /** Oldest first: pending (Maria), pago (João), canceled (Maria), pending (João). */
    let made: SubscriptionBody[]

    const ids = (page: PageBody<SubscriptionBody>) => page.data.map((s) => s.id)
    const idsOf = (...indexes: number[]) => indexes.map((i) => made[i]?.id)

    beforeAll(async () => {
      c = await seller([TOTAL_12X])
      const plan = c.plans[0]?.id as number
      cMaria = await addCustomer(c.token, MARIA, { name: 'Maria (C)' })
      cJoao = await addCustomer(c.token, JOAO, { name: 'João (C)' })
      made = []
      for (const [customer, hour] of [
        [cMaria, 10],
        [cJoao, 11],
        [cMaria, 12],
        [cJoao, 13],
      ] as const) {
        made.push(
          await at(`2026-11-20T${hour}:00:00Z`, c.partner, (token) =>
            contract(token, { plan_id: plan, customer_id: customer.id, model_id: pro }),
          ),
        )
      }
      const setStatus = (index: number, status: 'pago' | 'canceled') =>
        ctx.db
          .updateTable('subscriptions')
          .set({ status })
          .where('id', '=', made[index]?.id as number)
          .execute()
      await setStatus(1, 'pago')
      await setStatus(2, 'canceled')
    })

    describe('GET /subscriptions', () => {
      it("lists only the partner's subscriptions, newest first, in the paged envelope", async () => {
        const page = await okJson<PageBody<SubscriptionBody>>(c.token, '/subscriptions')
        expect(ids(page)).toEqual(idsOf(3, 2, 1, 0))
        expect(page.data.map((s) => s.created_at)).toEqual([
          '2026-11-20 10:00:00',
          '2026-11-20 09:00:00',
          '2026-11-20 08:00:00',
          '2026-11-20 07:00:00',
        ])
        expect(page.data.map((s) => s.status)).toEqual(['pending', 'canceled', 'pago', 'pending'])
        expect(Object.keys(page)).toEqual(['data', 'links', 'meta'])
        expect(page.meta).toMatchObject({
          current_page: 1,
          from: 1,
          last_page: 1,
          path: `${base}/subscriptions`,
          per_page: 15,
          to: 4,
          total: 4,
        })
        expect(page.links).toMatchObject({ prev: null, next: null })
        for (const link of [page.links.first, page.links.last]) {
          expect(link.split('?')[0]).toBe(`${base}/subscriptions`)
          expect(new URL(link).searchParams.get('page')).toBe('1')
        }
      })

      it('shows each item exactly as GET /subscriptions/{id} does', async () => {
        const page = await okJson<PageBody<SubscriptionBody>>(c.token, '/subscriptions')
        for (const item of page.data) {
          expect(await okJson(c.token, `/subscriptions/${item.id}`)).toEqual(item)
        }
        expect(page.data[0]?.customer).toEqual(cJoao)
      })

      it('pages with per_page, keeping the other parameters in the links', async () => {
        const first = await okJson<PageBody<SubscriptionBody>>(c.token, '/subscriptions?per_page=3')
        expect(ids(first)).toEqual(idsOf(3, 2, 1))
        expect(first.meta).toMatchObject({
          current_page: 1,
          from: 1,
          to: 3,
          last_page: 2,
          per_page: 3,
          total: 4,
        })
        expect(first.links.next).not.toBeNull()
        const next = new URL(first.links.next as string)
        expect(next.searchParams.get('page')).toBe('2')
        expect(next.searchParams.get('per_page')).toBe('3')

        const second = await okJson<PageBody<SubscriptionBody>>(c.token, '/subscriptions?per_page=3&page=2')
        expect(ids(second)).toEqual(idsOf(0))
        expect(second.meta).toMatchObject({ current_page: 2, from: 4, to: 4 })

        const past = await okJson<PageBody<SubscriptionBody>>(c.token, '/subscriptions?per_page=3&page=3')
        expect(past.data).toEqual([])
        expect(past.meta).toMatchObject({ from: null, to: null, total: 4 })

        const filtered = await okJson<PageBody<SubscriptionBody>>(
          c.token,
          '/subscriptions?per_page=1&filter[status]=pending',
        )
        expect(ids(filtered)).toEqual(idsOf(3))
        expect(filtered.meta.total).toBe(2)
        expect(new URL(filtered.links.next as string).searchParams.get('filter[status]')).toBe('pending')
      })

      it.each(['per_page=0', 'per_page=101', 'page=0', 'page=abc'])('refuses %s with 422', async (query) => {
        const response = await call('GET', `/subscriptions?${query}`, c.token)
        expect(response.statusCode, response.body).toBe(422)
        expect(Object.keys((response.json() as ErrorBody).errors ?? {})).toEqual([query.split('=')[0]])
      })

      it.each([
        ['pending', [3, 0]],
        ['pago', [1]],
        ['canceled', [2]],
      ])('filter[status]=%s', async (status, indexes) => {
        const page = await okJson<PageBody<SubscriptionBody>>(
          c.token,
          `/subscriptions?filter[status]=${status}`,
        )
        expect(ids(page)).toEqual(idsOf(...indexes))
        expect(page.meta.total).toBe(indexes.length)
        expect(page.data.every((s) => s.status === status)).toBe(true)
      })

      it.each(['bogus', 'PROTECTED', 'paid'])('refuses filter[status]=%s with 422', async (status) => {
        const response = await call('GET', `/subscriptions?filter[status]=${status}`, c.token)
        expect(response.statusCode, response.body).toBe(422)
        expect(Object.keys((response.json() as ErrorBody).errors ?? {})).toEqual(['filter[status]'])
      })

      it('reads a blank filter as none, like any blank query parameter', async () => {
        const all = await okJson<PageBody<SubscriptionBody>>(c.token, '/subscriptions')
        const blank = await okJson<PageBody<SubscriptionBody>>(
          c.token,
          '/subscriptions?filter[status]=&filter[customer_document]=',
        )
        expect(ids(blank)).toEqual(ids(all))
      })

      it.each([
        ['formatted', MARIA],
        ['bare', bare(MARIA)],
      ])(
        "filter[customer_document] %s → only that customer's, of this partner only",
        async (_label, document) => {
          const page = await okJson<PageBody<SubscriptionBody>>(
            c.token,
            `/subscriptions?filter[customer_document]=${encodeURIComponent(document)}`,
          )
          // Partners A and B have customers with this CPF and subscriptions of theirs: none appears.
          expect(ids(page)).toEqual(idsOf(2, 0))
          expect(page.data.every((s) => s.customer.id === cMaria.id)).toBe(true)
        },
      )

      it('filter[customer_document] finds an alphanumeric CNPJ sent in lowercase', async () => {
        const created = await contract(a.token, minimal({ customer_id: alnum.id }))
        const page = await okJson<PageBody<SubscriptionBody>>(
          a.token,
          `/subscriptions?filter[customer_document]=${ALNUM_LOWER}`,
        )
        expect(ids(page)[0]).toBe(created.id)
        expect(page.data.every((s) => s.customer.id === alnum.id)).toBe(true)
      })

      it('combines the filters', async () => {
        const page = await okJson<PageBody<SubscriptionBody>>(
          c.token,
          `/subscriptions?filter[customer_document]=${bare(JOAO)}&filter[status]=pending`,
        )
        expect(ids(page)).toEqual(idsOf(3))
      })

      it('answers an empty page for a valid document no customer of the partner has', async () => {
        for (const document of [CARLA, EMPRESA]) {
          const page = await okJson<PageBody<SubscriptionBody>>(
            c.token,
            `/subscriptions?filter[customer_document]=${encodeURIComponent(document)}`,
          )
          expect(page.data).toEqual([])
          expect(page.meta.total).toBe(0)
        }
      })

      it('refuses an invalid filter[customer_document] with 422', async () => {
        for (const document of ['123.456.789-00', '52998224724', 'abc']) {
          const response = await call(
            'GET',
            `/subscriptions?filter[customer_document]=${encodeURIComponent(document)}`,
            c.token,
          )
          expect(response.statusCode, response.body).toBe(422)
          expect(Object.keys((response.json() as ErrorBody).errors ?? {})).toEqual([
            'filter[customer_document]',
          ])
        }
      })

      it("never shows another partner's subscriptions", async () => {
        const ofB = await okJson<PageBody<SubscriptionBody>>(b.token, '/subscriptions?per_page=100')
        expect(ids(ofB)).toEqual([...subscriptionsOfB].reverse())
        const ofA = await okJson<PageBody<SubscriptionBody>>(a.token, '/subscriptions?per_page=100')
        expect(ofA.meta.total).toBeGreaterThan(10)
        for (const id of subscriptionsOfB) expect(ids(ofA)).not.toContain(id)
        for (const id of idsOf(0, 1, 2, 3)) expect(ids(ofA)).not.toContain(id)
        const rows = await ctx.db
          .selectFrom('subscriptions')
          .select('id')
          .where('partner_id', '=', a.partner.id)
          .orderBy('id', 'desc')
          .execute()
        expect(ofA.meta.total).toBe(rows.length)
        expect(ids(ofA)).toEqual(rows.map((r) => r.id).slice(0, 100))
      })
    })

    describe('GET /subscriptions/{id}', () => {
      it('answers the union resource with the current status', async () => {
        const paid = await okJson<SubscriptionBody>(c.token, `/subscriptions/${made[1]?.id}`)
        expect(paid).toEqual({ ...made[1], status: 'pago' })
        const canceled = await okJson<SubscriptionBody>(c.token, `/subscriptions/${made[2]?.id}`)
        expect(canceled.status).toBe('canceled')
      })

      it("answers 404 for another partner's subscription, an unknown id and a malformed one", async () => {
        await expect404(a.token, `/subscriptions/${subscriptionOfB.id}`)
        await expect404(b.token, `/subscriptions/${made[0]?.id}`)
        for (const id of [987_654, 0, -1, 'abc', '1.5', 99_999_999_999]) {
          await expect404(c.token, `/subscriptions/${id}`)
        }
        expect((await okJson<SubscriptionBody>(b.token, `/subscriptions/${subscriptionOfB.id}`)).id).toBe(
          subscriptionOfB.id,
        )
      })
    })

    describe('GET /subscriptions/{id}/installments', () => {
      it("answers 404 for another partner's subscription, an unknown id and a malformed one", async () => {
        await expect404(a.token, `/subscriptions/${subscriptionOfB.id}/installments`)
        await expect404(b.token, `/subscriptions/${made[0]?.id}/installments`)
        for (const id of [987_654, 'abc']) await expect404(c.token, `/subscriptions/${id}/installments`)
        expect(await installmentsOf(b.token, subscriptionOfB.id)).toHaveLength(12)
      })

      it("lists the subscription's own installments, by number", async () => {
        const first = await installmentsOf(c.token, made[0]?.id as number)
        const second = await installmentsOf(c.token, made[1]?.id as number)
        expect(first.map((i) => i.number)).toEqual([...Array(12)].map((_, i) => i + 1))
        expect(first.map((i) => i.due_date).slice(0, 2)).toEqual(['2026-11-20', '2026-12-20'])
        const firstIds = new Set(first.map((i) => i.id))
        expect(second.some((i) => firstIds.has(i.id))).toBe(false)
      })
    })

    describe('authentication', () => {
      it.each([
        ['GET', '/subscriptions'],
        ['GET', '/subscriptions/1'],
        ['GET', '/subscriptions/1/installments'],
        ['POST', '/subscriptions'],
      ] as const)('%s %s without a token answers 401', async (method, url) => {
        const response = await call(method, url, null, method === 'POST' ? { plan_id: 1 } : undefined)
        expect(response.statusCode).toBe(401)
        expect(response.json()).toEqual(
          expectedError(response, 'unauthenticated', { message: 'Unauthenticated.' }),
        )
        expect(response.headers['www-authenticate']).toBe('Bearer')
      })

      it('refuses an invalid token', async () => {
        expect((await call('GET', '/subscriptions', 'not-a-jwt')).statusCode).toBe(401)
      })
    })
  })

  describe('GET /subscriptions paged by partner sequence', () => {
    /** D and E contract interleaved; each list must show exactly its own, newest first. */
    let d: Seller
    let e: Seller
    /** Each partner's subscription ids, oldest first. */
    const own = new Map<Seller, number[]>()
    /** Two customers per partner: the first contracts even positions, the second odd ones. */
    const customersOf = new Map<Seller, [CustomerBody, CustomerBody]>()

    const idsOf = (page: PageBody<SubscriptionBody>) => page.data.map((s) => s.id)
    const newestFirst = (ids: number[]) => [...ids].sort((x, y) => y - x)

    /**
     * Walks every page of `query` and the one after the last, checking each page's meta; returns
     * the ids in list order.
     */
    async function walk(who: Seller, perPage: number, query = ''): Promise<number[]> {
      const seen: number[] = []
      const url = (page: number) => `/subscriptions?per_page=${perPage}&page=${page}${query}`
      const first = await okJson<PageBody<SubscriptionBody>>(who.token, url(1))
      const { total, last_page: lastPage } = first.meta
      expect(lastPage).toBe(Math.max(1, Math.ceil(total / perPage)))
      for (let page = 1; page <= lastPage; page++) {
        const body = page === 1 ? first : await okJson<PageBody<SubscriptionBody>>(who.token, url(page))
        const expected = Math.max(0, Math.min(perPage, total - (page - 1) * perPage))
        expect(body.data).toHaveLength(expected)
        expect(body.meta).toMatchObject({
          current_page: page,
          per_page: perPage,
          total,
          last_page: lastPage,
          from: expected === 0 ? null : (page - 1) * perPage + 1,
          to: expected === 0 ? null : (page - 1) * perPage + expected,
        })
        seen.push(...idsOf(body))
      }
      const beyond = await okJson<PageBody<SubscriptionBody>>(who.token, url(lastPage + 1))
      expect(beyond.data).toEqual([])
      expect(beyond.meta).toMatchObject({
        current_page: lastPage + 1,
        from: null,
        to: null,
        total,
        last_page: lastPage,
      })
      expect(beyond.links.next).toBeNull()
      expect(new Set(seen).size).toBe(seen.length)
      return seen
    }

    beforeAll(async () => {
      d = await seller([TOTAL_12X])
      e = await seller([TOTAL_12X])
      for (const who of [d, e]) {
        own.set(who, [])
        customersOf.set(who, [
          await addCustomer(who.token, MARIA, { name: 'Maria' }),
          await addCustomer(who.token, JOAO, { name: 'João' }),
        ])
      }
      // Partner A's contracts interleave too (A already has many from the tests above).
      for (const letter of 'DEDDADEEDDDAEDDE') {
        if (letter === 'A') {
          await contract(a.token, minimal())
          continue
        }
        const who = letter === 'D' ? d : e
        const ids = own.get(who) as number[]
        const customer = (customersOf.get(who) as [CustomerBody, CustomerBody])[
          ids.length % 2
        ] as CustomerBody
        const created = await contract(who.token, {
          plan_id: who.plans[0]?.id,
          customer_id: customer.id,
          model_id: pro,
        })
        ids.push(created.id)
      }
      // D's 2nd, 5th and 7th are paid: a status filter that skips rows on every page.
      const paid = [1, 4, 6].map((i) => own.get(d)?.[i] as number)
      await ctx.db.updateTable('subscriptions').set({ status: 'pago' }).where('id', 'in', paid).execute()
    })

    it.each([1, 3, 4, 15])(
      'gives each partner exactly its own, newest first, without gaps or repeats (per_page=%i)',
      async (perPage) => {
        for (const who of [d, e]) {
          const ids = own.get(who) as number[]
          expect(await walk(who, perPage)).toEqual(newestFirst(ids))
          const first = await okJson<PageBody<SubscriptionBody>>(
            who.token,
            `/subscriptions?per_page=${perPage}`,
          )
          expect(first.meta.total).toBe(ids.length)
        }
        expect(own.get(d)).toHaveLength(9)
        expect(own.get(e)).toHaveLength(5)
      },
    )

    it('numbers each partner 1..n in id order, whatever the interleaving', async () => {
      for (const who of [d, e, a]) {
        const rows = await ctx.db
          .selectFrom('subscriptions')
          .select(['id', 'partner_seq'])
          .where('partner_id', '=', who.partner.id)
          .orderBy('id')
          .execute()
        expect(rows.map((r) => Number(r.partner_seq))).toEqual(rows.map((_, i) => i + 1))
      }
    })

    it('pages the filtered lists the same way', async () => {
      const ids = own.get(d) as number[]
      const paid = [1, 4, 6].map((i) => ids[i] as number)
      const pending = ids.filter((id) => !paid.includes(id))
      for (const perPage of [1, 2, 4]) {
        expect(await walk(d, perPage, '&filter[status]=pago')).toEqual(newestFirst(paid))
        expect(await walk(d, perPage, '&filter[status]=pending')).toEqual(newestFirst(pending))
        expect(await walk(d, perPage, `&filter[customer_document]=${bare(JOAO)}`)).toEqual(
          newestFirst(ids.filter((_, i) => i % 2 === 1)),
        )
        expect(
          await walk(d, perPage, `&filter[customer_document]=${bare(MARIA)}&filter[status]=pending`),
        ).toEqual(newestFirst(pending.filter((id) => ids.indexOf(id) % 2 === 0)))
      }
    })

    it('answers an empty list, total 0, for a partner that never contracted', async () => {
      const fresh = await seller([TOTAL_12X])
      expect(await walk(fresh, 15)).toEqual([])
      const page = await okJson<PageBody<SubscriptionBody>>(fresh.token, '/subscriptions')
      expect(page.meta).toMatchObject({ total: 0, last_page: 1, from: null, to: null })
    })

    it('answers an empty page far beyond the end', async () => {
      const page = await okJson<PageBody<SubscriptionBody>>(
        d.token,
        '/subscriptions?page=2147483647&per_page=100',
      )
      expect(page.data).toEqual([])
      expect(page.meta).toMatchObject({ current_page: 2_147_483_647, total: 9, last_page: 1 })
    })

    it('gives concurrent contracts of one partner distinct, dense numbers', async () => {
      // A partner with no counter row yet: the first contracts race to create it.
      const busy = await seller([TOTAL_12X])
      const customer = await addCustomer(busy.token, MARIA)
      const body = { plan_id: busy.plans[0]?.id, customer_id: customer.id, model_id: pro }
      const created = await Promise.all(Array.from({ length: 20 }, () => contract(busy.token, body)))
      const ids = created.map((s) => s.id)
      expect(new Set(ids).size).toBe(20)

      const page = await okJson<PageBody<SubscriptionBody>>(busy.token, '/subscriptions?per_page=100')
      expect(page.meta.total).toBe(20)
      expect(idsOf(page)).toEqual(newestFirst(ids))
      expect(await walk(busy, 7)).toEqual(newestFirst(ids))

      const later = await contract(busy.token, body)
      const after = await okJson<PageBody<SubscriptionBody>>(busy.token, '/subscriptions?per_page=1')
      expect(idsOf(after)).toEqual([later.id])
      expect(after.meta.total).toBe(21)
    })
  })
})
