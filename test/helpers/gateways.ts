import type { PaymentGateway } from '../../src/modules/payments/payment-gateway.js'
import { SandboxGateway } from '../../src/modules/payments/sandbox-gateway.js'

/** The sandbox gateway with some of its calls replaced (counted, delayed, failing). */
export function sandboxWith(overrides: Partial<PaymentGateway>): PaymentGateway {
  const sandbox = new SandboxGateway()
  return {
    createCustomer: (id, key) => sandbox.createCustomer(id, key),
    chargeCard: (card, charge) => sandbox.chargeCard(card, charge),
    chargeSaved: (saved, amount, key) => sandbox.chargeSaved(saved, amount, key),
    verifyCard: (card, customerId, key) => sandbox.verifyCard(card, customerId, key),
    refund: (reference, amount, key) => sandbox.refund(reference, amount, key),
    ...overrides,
  }
}
