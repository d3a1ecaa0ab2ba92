import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { CardData, FirstCharge } from '../src/modules/payments/payment-gateway.js'
import { STRIPE_DEFAULTS, StripeGateway } from '../src/modules/payments/stripe-gateway.js'

// Opt-in, against Stripe's own test mode (raw card data APIs must be enabled on the account):
//   STRIPE_TEST_SECRET_KEY=sk_test_… npx vitest run test/stripe.live.test.ts
// Each run has its own key namespace, as each deployment does, so runs never replay each other's answers.
const key = process.env.STRIPE_TEST_SECRET_KEY ?? ''

const card = (number: string): CardData => ({
  number,
  expiryMonth: 12,
  expiryYear: 2034,
  cvv: '123',
  holder: 'MARIA',
})
const label = { partnerId: 1, reference: 'live-test' }

describe.skipIf(!key)('the Stripe adapter against Stripe test mode', () => {
  // Built in the tests: the library refuses an empty key even where the suite is skipped.
  const keyNamespace = `amparo_live_${randomBytes(6).toString('hex')}`
  let built: StripeGateway | undefined
  const live = () => {
    built ??= new StripeGateway({ ...STRIPE_DEFAULTS, secretKey: key, apiUrl: '', keyNamespace })
    return built
  }

  /** Card details made a PaymentMethod, then charged as a first charge. */
  async function firstCharge(number: string, customerId: string, idempotencyKey: string) {
    const gateway = live()
    const saved = await gateway.saveCard(card(number), `${idempotencyKey}-payment-method`, label)
    if (!saved.approved) throw new Error(`card refused: ${saved.declineCode}`)
    const charge: FirstCharge = {
      ...label,
      amountCents: 2990,
      customerId,
      paymentMethod: saved.token,
      saveForLater: true,
      installments: 1,
      idempotencyKey,
    }
    return { saved, charge, result: await gateway.chargeCard(charge) }
  }

  it('creates a customer, charges a card saved for later, charges it again off session', async () => {
    expect(key).toMatch(/^[sr]k_test_/)
    const gateway = live()
    const customerId = await gateway.createCustomer(1, 'customer-1', label)
    expect(customerId).toMatch(/^cus_/)
    const first = await firstCharge('4242424242424242', customerId, 'first-charge')
    expect(first.result).toMatchObject({ approved: true, transactionId: expect.stringMatching(/^pi_/) })
    expect(first.saved.token).toMatch(/^pm_/)
    // The same call again is Stripe's replay, not a second charge.
    expect(await gateway.chargeCard(first.charge)).toEqual(first.result)
    const later = await gateway.chargeSaved(
      { customerId, token: first.saved.token },
      2990,
      'second-charge',
      label,
    )
    expect(later).toMatchObject({ approved: true })
    const refund = await gateway.refund(
      first.result.approved ? first.result.transactionId : '',
      2990,
      'refund-1',
      label,
    )
    expect(refund).toMatch(/^re_/)
  })

  it('maps declines, 3-D Secure, a verification and a detach', async () => {
    const gateway = live()
    const customerId = await gateway.createCustomer(2, 'customer-2', label)
    expect((await firstCharge('4000000000009995', customerId, 'funds')).result).toMatchObject({
      approved: false,
      declineCode: 'insufficient_funds',
    })
    expect((await firstCharge('4000000000000002', customerId, 'declined')).result).toMatchObject({
      approved: false,
      declineCode: 'generic_decline',
    })
    expect((await firstCharge('4000002760003184', customerId, '3ds')).result).toMatchObject({
      approved: false,
      declineCode: 'authentication_required',
    })
    const saved = await gateway.saveCard(card('5555555555554444'), 'verify-payment-method', label)
    if (!saved.approved) throw new Error('card refused')
    expect(saved.last4).toBe('4444')
    expect(await gateway.verifyCard({ customerId, token: saved.token }, 'verify', label)).toEqual({
      approved: true,
    })
    await gateway.detachCard(saved.token, 'verify-detach')
  })
})
