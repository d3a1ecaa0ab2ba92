import { describe, expect, it } from 'vitest'
import {
  annualCard,
  forged,
  instant,
  NOW,
  RENDERED_NOW,
  subscriptionCard,
  useSecurityWorld,
} from '../helpers/world/security.js'

// OWASP API3:2023 (broken object property level authorization), payment and cancellation calls:
// what the body says about status, amounts, dates, tokens or protocols never reaches the row.

const w = useSecurityWorld()

describe('payment and cancellation bodies', () => {
  it('notify-payment of an installment ignores paid_at, status, amount and number', async () => {
    const a = w.a.external
    const [first] = a.subscription.installmentIds
    const url = `/subscriptions/${a.subscription.id}/installments/${first}/notify-payment`
    const body = await w.ok('POST', url, a.token, { ...forged(w.b.external.partnerId), status: 'refused' })
    expect(body).toEqual({
      id: first,
      number: 1,
      status: 'paid',
      status_label: 'Pago',
      paid_at: RENDERED_NOW,
    })
    const row = await w.db
      .selectFrom('installments')
      .selectAll()
      .where('id', '=', first as number)
      .executeTakeFirstOrThrow()
    expect(row.amount).toBe(7200)
    expect(instant(row.paid_at)).toBe(NOW.toISOString())
  })

  it('card payment of a subscription keeps the gateway’s token, never a sent one', async () => {
    const a = w.a.own
    const creditCard = { ...subscriptionCard.creditCard, token: 'tok_forged', brand: 'elo', last4: '0000' }
    const body = await w.ok('POST', `/subscriptions/${a.subscription.id}/payment`, a.token, {
      ...forged(w.b.own.partnerId),
      status: 'canceled',
      creditCard,
    })
    expect(body).toMatchObject({ id: a.subscription.id, status: 'pago', lmi: 6000 })
    const row = await w.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', a.subscription.id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({
      partner_id: a.partnerId,
      status: 'pago',
      card_brand: 'visa',
      card_last4: '1111',
    })
    expect(row.card_token).not.toBe('tok_forged')
    expect(row.card_token).not.toContain('4111111111111111')
  })

  it('cancellation of a subscription ignores status and canceled_at', async () => {
    const a = w.a.external
    const body = await w.ok('POST', `/subscriptions/${a.subscription.id}/cancellation`, a.token, {
      ...forged(w.b.external.partnerId),
      reason: 'desistiu',
    })
    expect(body.status).toBe('canceled')
    const row = await w.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', a.subscription.id)
      .executeTakeFirstOrThrow()
    expect(instant(row.canceled_at)).toBe(NOW.toISOString())
  })

  it('annual notify-payment and card payment: policy number, premium and dates come from the service', async () => {
    const notified = await w.ok(
      'POST',
      `/annual-plans/${w.a.external.unpaidAnnualId}/notify-payment`,
      w.a.external.token,
      forged(0),
    )
    expect(notified.policy_number).toMatch(/^AMP-2026-\d{6}$/)
    expect(notified.policy_number).not.toBe('AMP-2026-999999')
    expect(notified).toMatchObject({
      status: 'paid',
      paid_at: RENDERED_NOW,
      starts_at: '2026-11-22 00:00:00',
    })

    const own = w.a.own
    const before = await w.ok('GET', `/annual-plans/${own.unpaidAnnualId}`, own.token)
    const paid = await w.ok('POST', `/annual-plans/${own.unpaidAnnualId}/payment`, own.token, {
      ...forged(0),
      ...annualCard,
      installments: 2,
    })
    expect(paid).toMatchObject({
      status: 'paid',
      premium: before.premium,
      lmi: before.lmi,
      paid_at: RENDERED_NOW,
    })
    expect(paid.policy_number).toMatch(/^AMP-2026-\d{6}$/)
    expect(paid.payment).toEqual({
      method: 'credit_card',
      installments: 2,
      card: { brand: 'visa', last4: '1111' },
    })
  })

  it('annual cancellation request and confirmation ignore refund_amount, status and protocol', async () => {
    const a = w.a.external
    const plan = await w.ok('GET', `/annual-plans/${a.unpaidAnnualId}`, a.token)
    const url = `/annual-plans/${a.unpaidAnnualId}/cancellation`
    const request = await w.ok('PUT', url, a.token, { ...forged(0), status: 'confirmed', reason: 'mudou' })
    expect(request).toMatchObject({ status: 'requested', reason: 'mudou', refund_amount: plan.premium })
    expect(request.protocol).toMatch(/^CAN-[A-Z2-7]{10}$/)
    const row = await w.db
      .selectFrom('annual_plan_cancellations')
      .selectAll()
      .where('annual_plan_id', '=', a.unpaidAnnualId)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({
      status: 'requested',
      confirmed_at: null,
      refund_amount: null,
      protocol: request.protocol,
    })
    expect((await w.ok('GET', `/annual-plans/${a.unpaidAnnualId}`, a.token)).status).toBe('paid')

    const confirmed = await w.ok('POST', `${url}/${request.protocol}`, a.token, forged(0))
    expect(confirmed.status).toBe('canceled')
    expect(confirmed.cancellation).toMatchObject({
      status: 'confirmed',
      refund_amount: plan.premium,
      confirmed_at: RENDERED_NOW,
    })
  })
})
