import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { PORTAL_COOKIE, portalCookieOptions } from '../../portal/guard.js'
import { Insured, portalErrors, signedInErrors } from './portal.schemas.js'
import { insuredProfile, portalSignOut } from './portal-session.service.js'

/** The signed-in insured, and signing out (README, Portal do segurado). */
export const portalSessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/session',
    {
      schema: {
        tags: ['Session'],
        operationId: 'getSession',
        summary: 'The signed-in insured',
        response: { 200: Insured, ...signedInErrors },
      },
      config: { insured: true },
    },
    async (request) => ({
      ...(await insuredProfile(app.db, request.insured)),
      time_zone: app.config.timeZone,
    }),
  )

  app.delete(
    '/api/session',
    {
      schema: {
        tags: ['Session'],
        operationId: 'signOut',
        summary: 'Sign out: the session ends on the server at once',
        response: {
          204: Type.Null({ description: 'Signed out (also when no session was open).' }),
          ...portalErrors,
        },
      },
    },
    async (request, reply) => {
      const token = request.cookies[PORTAL_COOKIE]
      if (token) await portalSignOut(app.db, token)
      reply.clearCookie(PORTAL_COOKIE, portalCookieOptions(request))
      return reply.code(204).send(null)
    },
  )
}
