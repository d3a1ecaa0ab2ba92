import { Webhook } from 'standardwebhooks'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  type AmparoEvent,
  type AmparoEventOf,
  type AnnualPlan,
  type Claim,
  type components,
  type Subscription,
  verifyWebhook,
} from '../../clients/typescript/src/index.js'

// The generated types, checked by the compiler (`tsc --noEmit` covers this file): the resources by
// name, and events narrowed by their `type`.

/** What a partner's webhook handler writes, without a cast. */
function handle(event: AmparoEvent): string {
  if (event.type === 'subscription.activated')
    return `subscription ${event.data.object.id} ${event.data.object.status}`
  if (event.type === 'annual_plan.paid') return `annual plan ${event.data.object.status}`
  if (event.type === 'claim.settled') return `claim ${event.data.object.status}`
  if (event.type === 'installment.payment_failed') return `installment ${event.data.object.last_decline_code}`
  if (event.type === 'ping') return `ping ${event.data.object.endpoint_id}`
  return event.type
}

describe('the client’s types', () => {
  it('name the resources: Subscription, AnnualPlan, Claim', () => {
    expectTypeOf<Subscription>().toEqualTypeOf<components['schemas']['Subscription']>()
    expectTypeOf<Subscription['status']>().toEqualTypeOf<'pending' | 'pago' | 'canceled' | 'expired'>()
    expectTypeOf<AnnualPlan['id']>().toEqualTypeOf<number>()
    expectTypeOf<Claim['documents'][number]>().toEqualTypeOf<components['schemas']['ClaimDocument']>()
  })

  it('narrow an event by its type to the resource it carries', () => {
    expectTypeOf<AmparoEventOf<'subscription.activated'>['data']['object']>().toEqualTypeOf<Subscription>()
    expectTypeOf<AmparoEventOf<'claim.opened'>['data']['object']>().toEqualTypeOf<Claim>()
    expectTypeOf<AmparoEventOf<'annual_plan.refund_updated'>['data']['object']>().toEqualTypeOf<AnnualPlan>()
    const ping = (event: AmparoEvent) => {
      if (event.type !== 'ping') return
      // @ts-expect-error a ping carries no subscription
      return event.data.object.status
    }
    expect(ping).toBeTypeOf('function')
  })

  it('type what verifyWebhook returns', () => {
    const secret = `whsec_${Buffer.from('a webhook secret of 32 bytes....').toString('base64')}`
    const event = {
      id: 'evt_6f1c2a9e0b7d4c3f8a5e1d2c3b4a5f60',
      type: 'ping',
      created_at: '2026-11-25 10:00:00',
      data: { object: { endpoint_id: 7 } },
    }
    const body = JSON.stringify(event)
    const at = new Date()
    const headers = {
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(event.id, at, body),
    }
    const received = verifyWebhook(body, headers, secret)
    expectTypeOf(received).toEqualTypeOf<AmparoEvent>()
    expect(handle(received)).toBe('ping 7')
  })
})
