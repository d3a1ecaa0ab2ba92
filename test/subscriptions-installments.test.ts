import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import type { PartnerContext } from '../src/modules/auth/partner-context.js'
import { renderingContext } from '../src/modules/events/event.service.js'
import { contractSubscription } from '../src/modules/subscriptions/subscription.service.js'
import { expectedError } from './helpers/errors.js'
import {
  a,
  at,
  call,
  contract,
  countRows,
  ctx,
  essencial,
  installmentsOf,
  maria,
  minimal,
  NOW,
  pro,
  total,
  useSubscriptionsWorld,
} from './helpers/world/subscriptions.js'

// The installments a contract creates: amounts, due dates, and atomicity of the contract.

useSubscriptionsWorld()

describe('subscriptions', () => {
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
          paid_with: null,
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
          'paid_with',
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
          retryingTransaction(ctx.db, async (trx) => {
            const { id } = await contractSubscription(
              trx,
              partner,
              { plan_id: total, customer_id: maria.id, model_id: pro },
              { now: NOW.toISOString(), realNow: NOW.toISOString(), timeZone: ctx.config.timeZone },
              renderingContext(ctx.config),
              renderingContext(ctx.config).base,
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
})
