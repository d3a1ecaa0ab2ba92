import fp from 'fastify-plugin'
import { authenticate } from '../modules/auth/auth.service.js'
import type { PartnerContext } from '../modules/auth/partner-context.js'
import { UnauthenticatedError } from '../shared/errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated partner; set on every route registered under `authenticated`. */
    partner: PartnerContext
  }
}

// The scheme is case-insensitive (RFC 7235 §2.1), as login's `Basic` is.
const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,4096})$/i

/** Bearer-token check for the routes of the scope it is registered in (see authenticate). */
export const authenticated = fp(
  async (app) => {
    app.decorateRequest('partner', null as unknown as PartnerContext)
    app.addHook('onRequest', async (request) => {
      const match = BEARER.exec(request.headers.authorization ?? '')
      if (!match?.[1]) throw new UnauthenticatedError()
      request.partner = await authenticate(app.db, app.tokens, match[1])
    })
  },
  { name: 'authenticated', dependencies: ['context'] },
)
