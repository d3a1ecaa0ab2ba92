import { describe, expect, it } from 'vitest'
import {
  CARDS,
  cancel,
  card,
  contract,
  ctx,
  expectError,
  first,
  INSTALLMENTS,
  installmentsOf,
  NOW,
  notify,
  PAID_AT,
  party,
  partyOf,
  pay,
  statusOf,
  subscriptionRow,
  useSubscriptionPaymentsWorld,
} from './helpers/world/subscription-payments.js'

// Canceling a subscription: its installments, its reason, and what cannot be canceled.

useSubscriptionPaymentsWorld()

describe('POST /subscriptions/{id}/cancellation', () => {
  it('cancels a pending subscription and all its installments, keeping the reason', async () => {
    const p = await party('external')
    const s = await contract(p)
    const response = await cancel(p, s.id, { reason: '  Cliente desistiu.  ' })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({ id: s.id, status: 'canceled' })
    const installments = await installmentsOf(p, s.id)
    expect(installments).toHaveLength(INSTALLMENTS)
    expect(installments.every((i) => i.status === 'canceled' && i.status_label === 'Cancelado')).toBe(true)
    expect(await subscriptionRow(s.id)).toMatchObject({
      status: 'canceled',
      cancel_reason: 'partner_request',
      cancel_comment: 'Cliente desistiu.',
    })
    expect(response.json().cancellation).toEqual({
      reason: 'partner_request',
      canceled_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      comment: 'Cliente desistiu.',
    })
    expect(new Date((await subscriptionRow(s.id)).canceled_at ?? '').toISOString()).toBe(NOW.toISOString())
  })

  it('keeps paid installments paid and cancels the rest, refused ones included', async () => {
    const external = await party('external')
    const paid = await contract(external)
    await notify(external, paid.id, first(paid).id)
    expect((await cancel(external, paid.id)).statusCode).toBe(200)
    const [one, ...rest] = await installmentsOf(external, paid.id)
    expect(one).toMatchObject({ status: 'paid', paid_at: PAID_AT })
    expect(rest.every((i) => i.status === 'canceled')).toBe(true)

    const own = await party('own')
    const refused = await contract(own)
    expect((await pay(own, refused.id, card(CARDS.declined))).statusCode).toBe(402)
    expect((await cancel(own, refused.id)).statusCode).toBe(200)
    expect((await installmentsOf(own, refused.id))[0]?.status).toBe('canceled')
  })

  it('accepts no body at all, keeping no reason', async () => {
    const p = await party('own')
    const s = await contract(p)
    const response = await cancel(p, s.id)
    expect(response.statusCode, response.body).toBe(200)
    expect(await subscriptionRow(s.id)).toMatchObject({
      status: 'canceled',
      cancel_reason: 'partner_request',
      cancel_comment: null,
    })
  })

  it('refuses a reason over 255 characters', async () => {
    const p = await party('own')
    const s = await contract(p)
    expectError(await cancel(p, s.id, { reason: 'x'.repeat(256) }), 422, 'reason')
    expect(await statusOf(p, s.id)).toBe('pending')
    expect((await cancel(p, s.id, { reason: 'x'.repeat(255) })).statusCode).toBe(200)
  })

  it('refuses an already canceled subscription with errors.status, changing nothing', async () => {
    const p = await party('external')
    const s = await contract(p)
    expect((await cancel(p, s.id, { reason: 'first' })).statusCode).toBe(200)
    expectError(await cancel(p, s.id, { reason: 'second' }), 422, 'status')
    expect((await subscriptionRow(s.id)).cancel_comment).toBe('first')
  })

  it('answers 404 for another partner’s subscription', async () => {
    const p = await party('external')
    const stranger = await partyOf(ctx.db, ctx.app, 'external')
    const theirs = await contract(stranger)
    expect((await cancel(p, theirs.id)).statusCode).toBe(404)
    expect(await statusOf(stranger, theirs.id)).toBe('pending')
  })
})
