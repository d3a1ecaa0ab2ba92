import { describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { expectedError } from './helpers/errors.js'
import { buildCheckedApp } from './helpers/test-app.js'
import {
  cancel,
  contract,
  contractedAt,
  ctx,
  EXPIRED_AT,
  EXPIRED_UNPAID,
  expectError,
  extraApps,
  first,
  INSTALLMENT_CENTS,
  installmentsOf,
  LAST_DAY_AT,
  ledger,
  logStream,
  NOW,
  notify,
  nth,
  PAID_AT,
  party,
  partyOf,
  statusOf,
  useSubscriptionPaymentsWorld,
} from './helpers/world/subscription-payments.js'
import { bearer } from './helpers/world.js'

// An external-gateway partner tells Amparo an installment was paid.

useSubscriptionPaymentsWorld()

describe('POST /subscriptions/{id}/installments/{installmentId}/notify-payment', () => {
  it('pays installment 1, activates the subscription and records one ledger row', async () => {
    const p = await party('external')
    const s = await contract(p)
    expect(await statusOf(p, s.id)).toBe('pending')

    const response = await notify(p, s.id, first(s).id)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({
      id: first(s).id,
      number: 1,
      status: 'paid',
      status_label: 'Pago',
      paid_at: PAID_AT,
    })
    expect(await statusOf(p, s.id)).toBe('pago')
    const [one, two] = await installmentsOf(p, s.id)
    expect(one).toMatchObject({ status: 'paid', status_label: 'Pago', paid_at: PAID_AT })
    expect(two).toMatchObject({ status: 'pending', paid_at: null })
    expect(await ledger(s.id)).toEqual([
      {
        installment_id: first(s).id,
        amount: INSTALLMENT_CENTS,
        route: 'notification',
        outcome: 'recorded',
        decline_code: null,
        transaction_id: null,
        created_at: NOW.toISOString(),
      },
    ])
  })

  it('answers a repeat with the same 200 and the first paid_at, recording nothing more', async () => {
    const p = await party('external')
    const s = await contract(p)
    const once = await notify(p, s.id, first(s).id)
    expect(once.statusCode, once.body).toBe(200)
    // Any later notification would carry a later time: the answer must still be the first one.
    const later = new Date(NOW.getTime() + 30 * 60_000)
    const app = await buildCheckedApp({
      config: ctx.config,
      db: ctx.db,
      clock: { now: () => later },
      logStream,
    })
    extraApps.push(app)
    for (const target of [ctx.app, app]) {
      const again = await notify(p, s.id, first(s).id, target)
      expect(again.statusCode, again.body).toBe(200)
      expect(again.json()).toEqual(once.json())
    }
    expect(await ledger(s.id)).toHaveLength(1)
  })

  it('refuses a later installment while installment 1 is unpaid, then records it once 1 is paid', async () => {
    const p = await party('external')
    const s = await contract(p)
    const refused = expectError(await notify(p, s.id, nth(s, 2).id), 422, 'status')
    expect(refused.errors.status).toEqual(['Installment 1 must be paid first.'])
    expect(await ledger(s.id)).toEqual([])
    expect((await installmentsOf(p, s.id))[1]?.status).toBe('pending')

    expect((await notify(p, s.id, first(s).id)).statusCode).toBe(200)
    const second = await notify(p, s.id, nth(s, 2).id)
    expect(second.statusCode, second.body).toBe(200)
    expect(second.json()).toMatchObject({ id: nth(s, 2).id, number: 2, status: 'paid', paid_at: PAID_AT })
    expect(await statusOf(p, s.id)).toBe('pago')
    expect((await ledger(s.id)).map((r) => [r.installment_id, r.route, r.outcome])).toEqual([
      [first(s).id, 'notification', 'recorded'],
      [nth(s, 2).id, 'notification', 'recorded'],
    ])
  })

  it('refuses a canceled subscription’s installments with errors.status', async () => {
    const p = await party('external')
    const s = await contract(p)
    expect((await cancel(p, s.id)).statusCode).toBe(200)
    for (const installment of [first(s), nth(s, 2)]) {
      expectError(await notify(p, s.id, installment.id), 422, 'status')
    }
    expect(await ledger(s.id)).toEqual([])
    expect(await statusOf(p, s.id)).toBe('canceled')
  })

  it('refuses a canceled installment of a live subscription with errors.status', async () => {
    const p = await party('external')
    const s = await contract(p)
    await retryingTransaction(ctx.db, (trx) =>
      trx.updateTable('installments').set({ status: 'canceled' }).where('id', '=', first(s).id).execute(),
    )
    const body = expectError(await notify(p, s.id, first(s).id), 422, 'status')
    expect(body.message).toBe('The installment is canceled.')
    expect(await ledger(s.id)).toEqual([])
    expect(await statusOf(p, s.id)).toBe('pending')
  })

  it('still answers a paid installment after the subscription was canceled, without recording it again', async () => {
    const p = await party('external')
    const s = await contract(p)
    const paid = await notify(p, s.id, first(s).id)
    expect((await cancel(p, s.id)).statusCode).toBe(200)
    const again = await notify(p, s.id, first(s).id)
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json()).toEqual(paid.json())
    expect(await ledger(s.id)).toHaveLength(1)
  })

  it('refuses installment 1 once the subscription is past its 30 unpaid days, worker run or not', async () => {
    const p = await party('external')
    // Day 55, and the first day the worker would cancel it.
    for (const at of ['2026-09-27T15:00:00.000Z', EXPIRED_AT]) {
      const s = await contract(p)
      await contractedAt(s.id, at)
      const body = expectError(await notify(p, s.id, first(s).id), 422, 'status')
      expect(body.message).toBe(EXPIRED_UNPAID)
      expect(await ledger(s.id)).toEqual([])
      expect((await installmentsOf(p, s.id))[0]?.status).toBe('pending')
      expect(await statusOf(p, s.id)).toBe('pending')
    }
    const lastDay = await contract(p)
    await contractedAt(lastDay.id, LAST_DAY_AT)
    expect((await notify(p, lastDay.id, first(lastDay).id)).statusCode).toBe(200)
    expect(await statusOf(p, lastDay.id)).toBe('pago')
  })

  it('refuses an own-gateway partner with errors.gateway', async () => {
    const p = await party('own')
    const s = await contract(p)
    expectError(await notify(p, s.id, first(s).id), 422, 'gateway')
    expect(await ledger(s.id)).toEqual([])
    expect(await statusOf(p, s.id)).toBe('pending')
  })

  it('answers 404 for another subscription’s or another partner’s installment', async () => {
    const p = await party('external')
    const mine = await contract(p)
    const mineToo = await contract(p)
    const stranger = await partyOf(ctx.db, ctx.app, 'external')
    const theirs = await contract(stranger)
    for (const [subscriptionId, installmentId] of [
      [mine.id, first(mineToo).id],
      [mine.id, first(theirs).id],
      [theirs.id, first(theirs).id],
      [mine.id, 2_000_000_000],
    ] as const) {
      const response = await notify(p, subscriptionId, installmentId)
      expect(response.statusCode, response.body).toBe(404)
      expect(response.json()).toEqual(expectedError(response, 'not_found', { message: expect.any(String) }))
    }
    const malformed = await ctx.app.inject({
      method: 'POST',
      url: `/subscriptions/${mine.id}/installments/abc/notify-payment`,
      headers: bearer(p.token),
    })
    expect(malformed.statusCode).toBe(404)
    expect(await ledger(theirs.id)).toEqual([])
    expect(await statusOf(stranger, theirs.id)).toBe('pending')
  })

  it('requires a token', async () => {
    const p = await party('external')
    const s = await contract(p)
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/subscriptions/${s.id}/installments/${first(s).id}/notify-payment`,
    })
    expect(response.statusCode).toBe(401)
  })
})
