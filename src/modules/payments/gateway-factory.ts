import { randomBytes } from 'node:crypto'
import type { Config } from '../../config.js'
import type { Db } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { keepKeyNamespace, keyNamespace } from './payment.repository.js'
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

/**
 * This deployment's namespace of gateway idempotency keys: random, made by the first process that
 * asks and kept, so two databases on one Stripe account never send one key for two operations
 * (docs/decisions.md). Of processes starting together, the first insert wins and all read it.
 */
export async function loadKeyNamespace(db: Db): Promise<string> {
  const made = `amparo_${randomBytes(12).toString('base64url')}`
  await retryingTransaction(db, (trx) => keepKeyNamespace(trx, made))
  return keyNamespace(db)
}
