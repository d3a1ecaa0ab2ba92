import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { sameOrigin } from '../console/guard.js'
import { type PortalInsured, sessionInsured } from '../modules/portal/portal-session.service.js'
import { AppError, UnauthenticatedError } from '../shared/errors.js'

/** The portal's session cookie (README, Portal do segurado). */
export const PORTAL_COOKIE = 'amparo_portal'

/** The session cookie's attributes: HttpOnly, SameSite=Strict, Secure in production. */
export const portalCookieOptions = (request: FastifyRequest) => ({
  httpOnly: true,
  sameSite: 'strict' as const,
  path: '/',
  secure: request.server.config.env === 'production',
})

export const PORTAL_CHALLENGE = `Cookie realm="Amparo portal", form-action="/api/session", cookie-name="${PORTAL_COOKIE}"`

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs a signed-in insured (the portal's routes). */
    insured?: boolean
  }
  interface FastifyRequest {
    /** The signed-in insured; set on every portal route that declares `config.insured`. */
    insured: PortalInsured
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * The portal's guard, before any body is read, as the console's: a state-changing request from
 * another origin → 403 `origin_refused`; a route with `config.insured` and no live session → 401.
 */
export const portalGuard = fp(
  async (app) => {
    app.decorateRequest('insured', null as unknown as PortalInsured)
    app.addHook('onRequest', async (request) => {
      if (!SAFE_METHODS.has(request.method) && !sameOrigin(request))
        throw new AppError('origin_refused', 'This request must come from the portal’s own pages.')
      if (!request.routeOptions.config?.insured) return
      const token = request.cookies[PORTAL_COOKIE]
      const insured = token ? await sessionInsured(app.db, token, app.clock.now()) : null
      if (!insured) throw new UnauthenticatedError()
      request.insured = insured
    })
  },
  { name: 'portal-guard', dependencies: ['context', '@fastify/cookie'] },
)
