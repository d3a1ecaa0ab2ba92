import type { PaymentGateway } from '../../src/modules/payments/payment-gateway.js'
import { SandboxGateway } from '../../src/modules/payments/sandbox-gateway.js'

/** The sandbox gateway with some of its calls replaced (counted, delayed, failing). */
export function sandboxWith(overrides: Partial<PaymentGateway>): PaymentGateway {
  const sandbox = new SandboxGateway()
  return {
    createCustomer: (...args) => sandbox.createCustomer(...args),
    saveCard: (...args) => sandbox.saveCard(...args),
    chargeCard: (charge) => sandbox.chargeCard(charge),
    chargeSaved: (...args) => sandbox.chargeSaved(...args),
    verifyCard: (...args) => sandbox.verifyCard(...args),
    detachCard: (...args) => sandbox.detachCard(...args),
    refund: (...args) => sandbox.refund(...args),
    createPix: (...args) => sandbox.createPix(...args),
    createBoleto: (...args) => sandbox.createBoleto(...args),
    ...overrides,
  }
}
