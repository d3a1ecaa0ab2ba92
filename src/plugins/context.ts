import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import { authenticate, type TokenService } from '../modules/auth/auth.service.js'
import type { PartnerContext } from '../modules/auth/partner-context.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import { UnauthenticatedError } from '../shared/errors.js'
import { type Clock, shiftedClock } from '../shared/time.js'

// What the app and each request carry: the app's configuration, database, clock, tokens and card
// gateway; the request's authenticated partner and its clock; what a card call takes of both.

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
  interface FastifyRequest {
    /** The authenticated partner; set on every route registered under `authenticated`. */
    partner: PartnerContext
    /**
     * The partner's time: what it does happens then (docs/decisions.md, Sandbox test clock). In `test` its sandbox clock,
     * moved by `POST /sandbox/clock/advance`; in production the app's clock. Tokens, rate limits
     * and idempotency keys keep `app.clock`.
     */
    clock: Clock
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

// The scheme is case-insensitive (RFC 7235 §2.1), as login's `Basic` is.
const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,4096})$/i

/** Bearer-token check for the routes of the scope it is registered in (see authenticate). */
export const authenticated = fp(
  async (app) => {
    // A production database first set up in test may hold offsets: production never reads them.
    const sandboxClocks = app.config.env === 'test'
    app.decorateRequest('partner', null as unknown as PartnerContext)
    app.decorateRequest('clock', null as unknown as Clock)
    app.addHook('onRequest', async (request) => {
      const match = BEARER.exec(request.headers.authorization ?? '')
      if (!match?.[1]) throw new UnauthenticatedError()
      const { clockOffsetSeconds, ...partner } = await authenticate(app.db, app.tokens, match[1])
      request.partner = partner
      request.clock = sandboxClocks ? shiftedClock(app.clock, clockOffsetSeconds) : app.clock
    })
  },
  { name: 'authenticated', dependencies: ['context'] },
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
