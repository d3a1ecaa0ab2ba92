import type { Config } from '../../config.js'
import type { Db } from '../../db/database.js'
import { loadKeyNamespace } from './key-namespace.repository.js'
import type { PaymentGateway } from './payment-gateway.js'
import { SandboxGateway } from './sandbox-gateway.js'
import type { StripeGatewayOptions } from './stripe-gateway.js'

/**
 * The configured gateway of a process; null when card payments are off. Stripe's idempotency keys
 * start with the deployment's key namespace, read from (or made in) `db`; `options`: tests' timeouts.
 */
export async function gatewayOf(
  config: Pick<Config, 'paymentGateway' | 'stripe'>,
  db: Db,
  options: Partial<StripeGatewayOptions> = {},
): Promise<PaymentGateway | null> {
  if (config.paymentGateway === 'sandbox') return new SandboxGateway()
  if (config.paymentGateway !== 'stripe' || !config.stripe) return null
  // Loaded only for Stripe: the library is 4 MB of heap that every other process would carry and
  // pay for in garbage collection (docs/benchmarks.md, Today's figures).
  const { STRIPE_DEFAULTS, StripeGateway } = await import('./stripe-gateway.js')
  const keyNamespace = await loadKeyNamespace(db)
  return new StripeGateway({ ...STRIPE_DEFAULTS, ...config.stripe, keyNamespace, ...options })
}
