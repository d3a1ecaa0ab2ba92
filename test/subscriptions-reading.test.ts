import { beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import type { Customer, Subscription } from './helpers/api-types.js'
import type { ErrorBody, PageBody } from './helpers/bodies.js'
import { bare } from './helpers/documents.js'
import { expectedError } from './helpers/errors.js'
import {
  ALNUM_LOWER,
  a,
  addCustomer,
  alnum,
  at,
  b,
  base,
  CARLA,
  call,
  contract,
  ctx,
  EMPRESA,
  expect404,
  installmentsOf,
  JOAO,
  MARIA,
  minimal,
  okJson,
  pro,
  type Seller,
  seller,
  subscriptionOfB,
  subscriptionsOfB,
  useSubscriptionsWorld,
} from './helpers/world/subscriptions.js'
import { TOTAL_12X } from './helpers/world.js'

// Reading subscriptions back: GET one, GET the list and its filters.

useSubscriptionsWorld()

/** A's list is read below for another partner's rows: give A more than ten of its own first. */
beforeAll(async () => {
  for (let i = 0; i < 11; i++) await contract(a.token, minimal())
})

describe('subscriptions', () => {
  describe('reading', () => {
    /** Partner C, on its own so that its list is exactly what these tests made. */
    let c: Seller
    let cMaria: Customer
    let cJoao: Customer
    /** Oldest first: pending (Maria), pago (João), canceled (Maria), pending (João). */
    let made: Subscription[]

    const ids = (page: PageBody<Subscription>) => page.data.map((s) => s.id)
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
        retryingTransaction(ctx.db, (trx) =>
          trx
            .updateTable('subscriptions')
            .set({ status })
            .where('id', '=', made[index]?.id as number)
            .execute(),
        )
      await setStatus(1, 'pago')
      await setStatus(2, 'canceled')
    })

    describe('GET /subscriptions', () => {
      it("lists only the partner's subscriptions, newest first, in the paged envelope", async () => {
        const page = await okJson<PageBody<Subscription>>(c.token, '/subscriptions')
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
        const page = await okJson<PageBody<Subscription>>(c.token, '/subscriptions')
        for (const item of page.data) {
          expect(await okJson(c.token, `/subscriptions/${item.id}`)).toEqual(item)
        }
        expect(page.data[0]?.customer).toEqual(cJoao)
      })

      it('pages with per_page, keeping the other parameters in the links', async () => {
        const first = await okJson<PageBody<Subscription>>(c.token, '/subscriptions?per_page=3')
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

        const second = await okJson<PageBody<Subscription>>(c.token, '/subscriptions?per_page=3&page=2')
        expect(ids(second)).toEqual(idsOf(0))
        expect(second.meta).toMatchObject({ current_page: 2, from: 4, to: 4 })

        const past = await okJson<PageBody<Subscription>>(c.token, '/subscriptions?per_page=3&page=3')
        expect(past.data).toEqual([])
        expect(past.meta).toMatchObject({ from: null, to: null, total: 4 })

        const filtered = await okJson<PageBody<Subscription>>(
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
        const page = await okJson<PageBody<Subscription>>(c.token, `/subscriptions?filter[status]=${status}`)
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
        const all = await okJson<PageBody<Subscription>>(c.token, '/subscriptions')
        const blank = await okJson<PageBody<Subscription>>(
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
          const page = await okJson<PageBody<Subscription>>(
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
        const page = await okJson<PageBody<Subscription>>(
          a.token,
          `/subscriptions?filter[customer_document]=${ALNUM_LOWER}`,
        )
        expect(ids(page)[0]).toBe(created.id)
        expect(page.data.every((s) => s.customer.id === alnum.id)).toBe(true)
      })

      it('combines the filters', async () => {
        const page = await okJson<PageBody<Subscription>>(
          c.token,
          `/subscriptions?filter[customer_document]=${bare(JOAO)}&filter[status]=pending`,
        )
        expect(ids(page)).toEqual(idsOf(3))
      })

      it('answers an empty page for a valid document no customer of the partner has', async () => {
        for (const document of [CARLA, EMPRESA]) {
          const page = await okJson<PageBody<Subscription>>(
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
        const ofB = await okJson<PageBody<Subscription>>(b.token, '/subscriptions?per_page=100')
        expect(ids(ofB)).toEqual([...subscriptionsOfB].reverse())
        const ofA = await okJson<PageBody<Subscription>>(a.token, '/subscriptions?per_page=100')
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
        const paid = await okJson<Subscription>(c.token, `/subscriptions/${made[1]?.id}`)
        expect(paid).toEqual({ ...made[1], status: 'pago', status_label: 'Pago' })
        const canceled = await okJson<Subscription>(c.token, `/subscriptions/${made[2]?.id}`)
        expect(canceled.status).toBe('canceled')
      })

      it("answers 404 for another partner's subscription, an unknown id and a malformed one", async () => {
        await expect404(a.token, `/subscriptions/${subscriptionOfB.id}`)
        await expect404(b.token, `/subscriptions/${made[0]?.id}`)
        for (const id of [987_654, 0, -1, 'abc', '1.5', 99_999_999_999]) {
          await expect404(c.token, `/subscriptions/${id}`)
        }
        expect((await okJson<Subscription>(b.token, `/subscriptions/${subscriptionOfB.id}`)).id).toBe(
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
})
