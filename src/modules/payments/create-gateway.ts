import type { Config } from '../../config.js'
import type { PaymentGateway } from './payment-gateway.js'
import { SandboxGateway } from './sandbox-gateway.js'

/** The gateway the configuration names; null when card payments are off. */
export function createGateway(config: Pick<Config, 'paymentGateway'>): PaymentGateway | null {
  return config.paymentGateway === 'sandbox' ? new SandboxGateway() : null
}
