import { beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import type { Customer, Subscription } from './helpers/api-types.js'
import type { PageBody } from './helpers/bodies.js'
import { bare } from './helpers/documents.js'
import {
  a,
  addCustomer,
  contract,
  ctx,
  JOAO,
  MARIA,
  minimal,
  okJson,
  pro,
  type Seller,
  seller,
  useSubscriptionsWorld,
} from './helpers/world/subscriptions.js'
import { TOTAL_12X } from './helpers/world.js'

// GET /subscriptions paged by each partner's own sequence, under interleaved contracts.

useSubscriptionsWorld()

describe('subscriptions', () => {
  describe('GET /subscriptions paged by partner sequence', () => {
    /** D and E contract interleaved; each list must show exactly its own, newest first. */
    let d: Seller
    let e: Seller
    /** Each partner's subscription ids, oldest first. */
    const own = new Map<Seller, number[]>()
    /** Two customers per partner: the first contracts even positions, the second odd ones. */
    const customersOf = new Map<Seller, [Customer, Customer]>()

    const idsOf = (page: PageBody<Subscription>) => page.data.map((s) => s.id)
    const newestFirst = (ids: number[]) => [...ids].sort((x, y) => y - x)

    /**
     * Walks every page of `query` and the one after the last, checking each page's meta; returns
     * the ids in list order.
     */
    async function walk(who: Seller, perPage: number, query = ''): Promise<number[]> {
      const seen: number[] = []
      const url = (page: number) => `/subscriptions?per_page=${perPage}&page=${page}${query}`
      const first = await okJson<PageBody<Subscription>>(who.token, url(1))
      const { total, last_page: lastPage } = first.meta
      expect(lastPage).toBe(Math.max(1, Math.ceil(total / perPage)))
      for (let page = 1; page <= lastPage; page++) {
        const body = page === 1 ? first : await okJson<PageBody<Subscription>>(who.token, url(page))
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
      const beyond = await okJson<PageBody<Subscription>>(who.token, url(lastPage + 1))
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
        const customer = (customersOf.get(who) as [Customer, Customer])[ids.length % 2] as Customer
        const created = await contract(who.token, {
          plan_id: who.plans[0]?.id,
          customer_id: customer.id,
          model_id: pro,
        })
        ids.push(created.id)
      }
      // D's 2nd, 5th and 7th are paid: a status filter that skips rows on every page.
      const paid = [1, 4, 6].map((i) => own.get(d)?.[i] as number)
      await retryingTransaction(ctx.db, (trx) =>
        trx.updateTable('subscriptions').set({ status: 'pago' }).where('id', 'in', paid).execute(),
      )
    })

    it.each([1, 3, 4, 15])(
      'gives each partner exactly its own, newest first, without gaps or repeats (per_page=%i)',
      async (perPage) => {
        for (const who of [d, e]) {
          const ids = own.get(who) as number[]
          expect(await walk(who, perPage)).toEqual(newestFirst(ids))
          const first = await okJson<PageBody<Subscription>>(who.token, `/subscriptions?per_page=${perPage}`)
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
      const page = await okJson<PageBody<Subscription>>(fresh.token, '/subscriptions')
      expect(page.meta).toMatchObject({ total: 0, last_page: 1, from: null, to: null })
    })

    it('answers an empty page far beyond the end', async () => {
      const page = await okJson<PageBody<Subscription>>(
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

      const page = await okJson<PageBody<Subscription>>(busy.token, '/subscriptions?per_page=100')
      expect(page.meta.total).toBe(20)
      expect(idsOf(page)).toEqual(newestFirst(ids))
      expect(await walk(busy, 7)).toEqual(newestFirst(ids))

      const later = await contract(busy.token, body)
      const after = await okJson<PageBody<Subscription>>(busy.token, '/subscriptions?per_page=1')
      expect(idsOf(after)).toEqual([later.id])
      expect(after.meta.total).toBe(21)
    })
  })
})
