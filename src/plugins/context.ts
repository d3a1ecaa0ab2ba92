import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import type { TokenService } from '../modules/auth/token.service.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import type { Clock } from '../shared/time.js'

export interface AppContext {
  config: Readonly<Config>
  db: Db
  clock: Clock
  tokens: TokenService
  /** The own card gateway; null when card payments are not available (AMPARO_PAYMENT_GATEWAY=none). */
  gateway: PaymentGateway | null
}

declare module 'fastify' {
  interface FastifyInstance extends AppContext {
    /** Set on SIGTERM: `/ready` answers 503 while the process drains before it closes. */
    lifecycle: { draining: boolean }
  }
}

/** What every route may use: configuration, database, clock, token service and card gateway. */
export const contextPlugin = fp<AppContext>(
  async (app, { config, db, clock, tokens, gateway }) => {
    app.decorate('config', config)
    app.decorate('db', db)
    app.decorate('clock', clock)
    app.decorate('tokens', tokens)
    app.decorate('gateway', gateway)
    app.decorate('lifecycle', { draining: false })
  },
  { name: 'context' },
)

/**
 * What a card call (a payment, a card update) takes from its request: the gateway, the request's
 * clock and log, the claim time, the card-testing limits, and its Idempotency-Key (a first charge
 * keeps it, so that the key's retry answers that charge's outcome).
 */
export function cardCallContext(request: FastifyRequest) {
  const { gateway, config } = request.server
  const pending = request.idempotency
  return {
    gateway,
    clock: request.clock,
    claimSeconds: config.paymentClaimSeconds,
    cardDeclineLimits: config.cardDeclineLimits,
    log: request.log,
    requestKey: pending && { key: pending.key, fingerprints: pending.prints },
  }
}
