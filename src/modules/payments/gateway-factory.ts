import type { Config } from '../../config.js'
import type { Db } from '../../db/database.js'
import { loadKeyNamespace } from './key-namespace.repository.js'
import type { PaymentGateway } from './payment-gateway.js'
import { SandboxGateway } from './sandbox-gateway.js'
import { STRIPE_DEFAULTS, StripeGateway, type StripeGatewayOptions } from './stripe-gateway.js'

/**
 * The gateway the configuration names; null when card payments are off. `keyNamespace`: the
 * deployment's (`loadKeyNamespace`), which Stripe's idempotency keys start with; the rest: tests'
 * timeouts.
 */
export function createGateway(
  config: Pick<Config, 'paymentGateway' | 'stripe'>,
  options: Pick<StripeGatewayOptions, 'keyNamespace'> & Partial<StripeGatewayOptions>,
): PaymentGateway | null {
  if (config.paymentGateway === 'sandbox') return new SandboxGateway()
  if (config.paymentGateway === 'stripe' && config.stripe) {
    return new StripeGateway({ ...STRIPE_DEFAULTS, ...config.stripe, ...options })
  }
  return null
}

/** The configured gateway of a process, with the deployment's key namespace read from (or made in) `db`. */
export async function gatewayOf(
  config: Pick<Config, 'paymentGateway' | 'stripe'>,
  db: Db,
  options: Partial<StripeGatewayOptions> = {},
): Promise<PaymentGateway | null> {
  const keyNamespace = config.paymentGateway === 'stripe' ? await loadKeyNamespace(db) : ''
  return createGateway(config, { keyNamespace, ...options })
}
