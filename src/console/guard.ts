import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Db } from '../db/database.js'
import type { OperatorRole } from '../db/tables/operator.js'
import { hasRole, normalizeEmail } from '../modules/operators/operator.rules.js'
import { type ConsoleOperator, sessionEmail, sessionOperator } from '../modules/operators/session.service.js'
import { AppError, UnauthenticatedError } from '../shared/errors.js'

/** The console's session cookie (README, Operator console). */
export const SESSION_COOKIE = 'amparo_console'

/**
 * A console 401's `WWW-Authenticate`: not `Bearer` (no token is taken), but the cookie scheme of
 * the HTTP cookie-auth draft, naming the sign-in and the cookie (docs/decisions.md).
 */
export const CONSOLE_CHALLENGE = `Cookie realm="Amparo console", form-action="/api/session", cookie-name="${SESSION_COOKIE}"`

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The least role a console route needs (admin ⊃ adjuster ⊃ viewer); none: public. */
    role?: OperatorRole
    /**
     * A step after the password (the TOTP code, the password change): its failures count against
     * the session's operator, not against an e-mail in the body.
     */
    failuresCountAgainst?: 'session'
    /** Open to a session whose one-time password is not yet replaced (its change, the session itself). */
    beforePasswordChange?: boolean
  }
  interface FastifyRequest {
    /** The signed-in operator; set on every console route that declares `config.role`. */
    operator: ConsoleOperator
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Whether a request comes from a page of the console itself: its `Origin` names the host the
 * request was sent to. Browsers send `Origin` on every cross-origin request and on same-origin
 * POST, PUT, PATCH and DELETE; a request without one is refused, like a cross-site one.
 */
export function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin
  if (!origin || origin === 'null') return false
  try {
    return new URL(origin).host === new URL(`http://${request.host}`).host
  } catch {
    return false
  }
}

/**
 * The console's guard, before any body is read: a state-changing request from another origin →
 * 403 `origin_refused` (with the SameSite=Strict cookie, the defence against cross-site requests);
 * a route with `config.role` and no live signed-in session → 401 `unauthenticated`; a role too low
 * → 403 `forbidden`; an operator whose one-time password is not yet replaced → 403
 * `password_change_required` on any route but its change. Routes without `config.role` (sign-in,
 * static files) are public.
 */
export const consoleGuard = fp(
  async (app) => {
    app.decorateRequest('operator', null as unknown as ConsoleOperator)
    app.addHook('onRequest', async (request) => {
      if (!SAFE_METHODS.has(request.method) && !sameOrigin(request))
        throw new AppError('origin_refused', 'This request must come from the console’s own pages.')
      const needed = request.routeOptions.config?.role
      if (!needed) return
      const token = request.cookies[SESSION_COOKIE]
      const operator = token ? await sessionOperator(app.db, token, app.clock.now()) : null
      if (!operator) throw new UnauthenticatedError()
      if (!hasRole(operator.role, needed))
        throw new AppError('forbidden', `This action needs the ${needed} role.`)
      if (operator.password_change_required && !request.routeOptions.config.beforePasswordChange)
        throw new AppError('password_change_required', 'Replace the one-time password first.')
      request.operator = operator
    })
  },
  { name: 'console-guard', dependencies: ['context', '@fastify/cookie'] },
)

/**
 * Whose account a failed console sign-in counts against (README, Rate limits): the e-mail typed at
 * `POST /api/session`; for the steps after it, the operator of the session cookie, so that a wrong
 * TOTP code counts as a wrong password does, and no e-mail slipped into their bodies can move the
 * count elsewhere. Operators' keys are apart from the partner users' (a shared Redis).
 */
export function operatorSignInAccount(db: Db) {
  return async (request: FastifyRequest): Promise<string | null> => {
    if (request.routeOptions.config?.failuresCountAgainst === 'session') {
      const token = request.cookies[SESSION_COOKIE]
      const email = token ? await sessionEmail(db, token) : null
      return email === null ? null : `operator:${email}`
    }
    const { email } = (request.body ?? {}) as { email?: unknown }
    return typeof email === 'string' ? `operator:${normalizeEmail(email)}` : null
  }
}
