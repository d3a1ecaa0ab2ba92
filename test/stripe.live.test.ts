import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { CardData } from '../src/modules/payments/payment-gateway.js'
import { STRIPE_DEFAULTS, StripeGateway } from '../src/modules/payments/stripe-gateway.js'

// Opt-in, against Stripe's own test mode (raw card data APIs must be enabled on the account):
//   STRIPE_TEST_SECRET_KEY=sk_test_… npx vitest run test/stripe.live.test.ts
// Each run prefixes its idempotency keys, so runs never replay each other's answers.
const key = process.env.STRIPE_TEST_SECRET_KEY ?? ''

const card = (number: string): CardData => ({ number, expiryMonth: 12, expiryYear: 2034, cvv: '123' })

describe.skipIf(!key)('the Stripe adapter against Stripe test mode', () => {
  // Built in the tests: the library refuses an empty key even where the suite is skipped.
  const prefix = `amparo-live-test-${randomBytes(6).toString('hex')}`
  let built: StripeGateway | undefined
  const live = () => {
    built ??= new StripeGateway({ ...STRIPE_DEFAULTS, secretKey: key, apiUrl: '', keyPrefix: prefix })
    return built
  }

  it('creates a customer, charges a card saved for later, charges it again off session', async () => {
    expect(key).toMatch(/^[sr]k_test_/)
    const gateway = live()
    const customerId = await gateway.createCustomer(1, 'customer-1')
    expect(customerId).toMatch(/^cus_/)
    const first = await gateway.chargeCard(card('4242424242424242'), {
      amountCents: 2990,
      customerId,
      saveForLater: true,
      reference: 'live-test',
      idempotencyKey: 'first-charge',
    })
    expect(first.result).toMatchObject({ approved: true, transactionId: expect.stringMatching(/^pi_/) })
    expect(first.token).toMatch(/^pm_/)
    // The same key again is Stripe's replay, not a second charge.
    const replay = await gateway.chargeCard(card('4242424242424242'), {
      amountCents: 2990,
      customerId,
      saveForLater: true,
      reference: 'live-test',
      idempotencyKey: 'first-charge',
    })
    expect(replay.result).toEqual(first.result)
    const later = await gateway.chargeSaved({ customerId, token: first.token }, 2990, 'second-charge')
    expect(later).toMatchObject({ approved: true })
  })

  it('maps declines, 3-D Secure and a verification', async () => {
    const gateway = live()
    const customerId = await gateway.createCustomer(2, 'customer-2')
    const charge = (number: string, idempotencyKey: string) =>
      gateway.chargeCard(card(number), {
        amountCents: 1000,
        customerId,
        saveForLater: true,
        reference: 'live',
        idempotencyKey,
      })
    expect((await charge('4000000000009995', 'funds')).result).toMatchObject({
      approved: false,
      declineCode: 'insufficient_funds',
    })
    expect((await charge('4000000000000002', 'declined')).result).toMatchObject({
      approved: false,
      declineCode: 'generic_decline',
    })
    expect((await charge('4000002760003184', '3ds')).result).toMatchObject({
      approved: false,
      declineCode: 'authentication_required',
    })
    expect(await gateway.verifyCard(card('5555555555554444'), customerId, 'verify')).toMatchObject({
      approved: true,
      last4: '4444',
    })
  })
})
