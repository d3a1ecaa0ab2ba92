import { describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { bare, cpfOf, formatCpf } from './helpers/documents.js'
import {
  ALNUM_LOWER,
  a,
  alnum,
  annual,
  b,
  CARLA,
  CUSTOMER_DOCUMENT_UNKNOWN,
  CUSTOMER_INVALID,
  CUSTOMER_REQUIRED,
  call,
  carlaOfB,
  catalog,
  contract,
  countRows,
  ctx,
  EMPRESA,
  empresa,
  inactive,
  joao,
  MARIA,
  MODEL_INVALID,
  maria,
  mariaOfB,
  minimal,
  otherPlan,
  PLAN_INVALID,
  refused,
  SERIALS_EQUAL,
  STORE_INVALID,
  subscriptionsOfB,
  useSubscriptionsWorld,
} from './helpers/world/subscriptions.js'

// Contracting a subscription: who it is for (customer), what (plan, model), nulls, and the store.

useSubscriptionsWorld()

describe('subscriptions', () => {
  describe('POST /subscriptions', () => {
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
          retryingTransaction(ctx.db, (trx) =>
            trx
              .updateTable('partner_models')
              .set({ unavailable })
              .where('partner_id', '=', a.partner.id)
              .where('model_id', '=', a15)
              .execute(),
          )
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
  })
})
