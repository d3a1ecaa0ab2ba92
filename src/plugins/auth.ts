import fp from 'fastify-plugin'
import { authenticate } from '../modules/auth/auth.service.js'
import type { PartnerContext } from '../modules/auth/partner-context.js'
import { UnauthenticatedError } from '../shared/errors.js'
import { type Clock, shiftedClock } from '../shared/time.js'

declare module 'fastify' {
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
