import fp from 'fastify-plugin'
import type { PartnerContext } from '../modules/auth/partner-context.js'
import { findActivePrincipal } from '../modules/auth/principal.repository.js'
import { InvalidTokenError } from '../modules/auth/token.service.js'
import { UnauthenticatedError } from '../shared/errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated partner; set on every route registered under `authenticated`. */
    partner: PartnerContext
  }
}

// The scheme is case-insensitive (RFC 7235 §2.1), as login's `Basic` is.
const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,4096})$/i

/**
 * Bearer-token check for the routes of the scope it is registered in. The token must be
 * genuine and current, and its credential (or user) still active: looked up on every request.
 */
export const authenticated = fp(
  async (app) => {
    app.decorateRequest('partner', null as unknown as PartnerContext)
    app.addHook('onRequest', async (request) => {
      const match = BEARER.exec(request.headers.authorization ?? '')
      if (!match?.[1]) throw new UnauthenticatedError()
      try {
        const { subject, partnerId } = await app.tokens.verify(match[1])
        const partner = await findActivePrincipal(app.db, subject)
        if (!partner || partner.partnerId !== partnerId) throw new UnauthenticatedError()
        request.partner = partner
      } catch (error) {
        if (error instanceof InvalidTokenError) throw new UnauthenticatedError()
        throw error
      }
    })
  },
  { name: 'authenticated', dependencies: ['context'] },
)
