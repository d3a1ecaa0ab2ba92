import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { consoleError, guardedErrors } from '../../console/console-schemas.js'
import { SESSION_COOKIE } from '../../console/guard.js'
import { SESSION_ABSOLUTE_MS } from './operator.rules.js'
import {
  PasswordChangeBody,
  SessionState,
  SignedIn,
  SignInBody,
  SignInResult,
  TotpBody,
} from './operator.schemas.js'
import { changeOwnPassword } from './operator-credentials.service.js'
import { confirmTotp, signIn, signOut } from './session.service.js'

const LOGIN_BODY_LIMIT = 16 * 1024

const writeErrors = {
  403: consoleError('The request came from another origin.', 'origin_refused'),
  500: consoleError('Server fault; quote `request_id`.', 'server_error'),
  503: consoleError('The database is unreachable for a moment.', 'service_unavailable'),
}

const cookieOptions = (request: FastifyRequest) => ({
  httpOnly: true,
  sameSite: 'strict' as const,
  path: '/',
  secure: request.server.config.env === 'production',
})

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string) {
  reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions(request), maxAge: SESSION_ABSOLUTE_MS / 1000 })
}

/**
 * Sign-in in two steps (password, then TOTP code), and the operator's own password change, under
 * the login limits: a wrong password or code counts against the operator's account wherever it is
 * typed.
 */
export const signInRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/session',
    {
      bodyLimit: LOGIN_BODY_LIMIT,
      schema: {
        tags: ['Session'],
        operationId: 'signIn',
        summary: 'Sign in with e-mail and password',
        description: `Opens a session (cookie \`amparo_console\`, HttpOnly, SameSite=Strict). With TOTP
enrolled, the answer is \`{stage: 'totp'}\` and \`POST /api/session/totp\` completes it; where TOTP is required
(production) and not yet enrolled, or when \`enroll\` is true, the answer carries the new seed once.
Unknown e-mail, wrong password and disabled operator all answer the same 401.`,
        body: SignInBody,
        response: {
          200: SignInResult,
          401: consoleError('Wrong e-mail or password.', 'invalid_credentials'),
          422: consoleError('A field is missing or too long.', 'validation_failed'),
          ...writeErrors,
        },
      },
    },
    async (request, reply) => {
      const { token, answer } = await signIn(app.db, {
        email: request.body.email,
        password: request.body.password,
        enroll: request.body.enroll ?? false,
        totpRequired: app.config.env === 'production',
        secretKey: app.config.consoleSecretKey,
        now: app.clock.now(),
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
      })
      setSessionCookie(request, reply, token)
      return answer.stage === 'done' ? { ...answer, time_zone: app.config.timeZone } : answer
    },
  )

  app.post(
    '/api/session/totp',
    {
      bodyLimit: LOGIN_BODY_LIMIT,
      schema: {
        tags: ['Session'],
        operationId: 'confirmTotp',
        summary: 'Complete the sign-in (or the enrolment) with a TOTP code',
        description: `Each code is accepted once; after 5 wrong codes the sign-in must start again. Wrong codes
count against the operator's account as wrong passwords do: past the sign-in limit, 429.`,
        body: TotpBody,
        response: {
          200: SignedIn,
          401: consoleError(
            'No sign-in awaiting a code, or a wrong or reused code.',
            'unauthenticated',
            'invalid_credentials',
          ),
          422: consoleError('The code is missing.', 'validation_failed'),
          ...writeErrors,
        },
      },
      config: { failuresCountAgainst: 'session' },
    },
    async (request) => {
      const token = request.cookies[SESSION_COOKIE] ?? ''
      const operator = await confirmTotp(app.db, token, request.body.code, {
        now: app.clock.now(),
        ip: request.ip,
        secretKey: app.config.consoleSecretKey,
      })
      return { stage: 'done' as const, operator, time_zone: app.config.timeZone }
    },
  )

  app.post(
    '/api/session/password',
    {
      bodyLimit: LOGIN_BODY_LIMIT,
      schema: {
        tags: ['Session'],
        operationId: 'changeOwnPassword',
        summary: 'Change the signed-in operator’s own password',
        description: `The current password and, with a second factor enrolled, a code of the authenticator; the
new one is 12 to 200 characters and differs from it. This session stays open, the operator's others end.
A one-time password (created or reset by an admin) must be replaced so before anything else; that change asks
no code, the sign-in's having just been given. A wrong password or code answers 401 and counts against the
operator's sign-in limit.`,
        body: PasswordChangeBody,
        response: {
          ...guardedErrors(true),
          200: SessionState,
          401: consoleError(
            'Not signed in, or a wrong current password or code.',
            'unauthenticated',
            'invalid_credentials',
          ),
          422: consoleError(
            'The new password is too short or long, or unchanged; or the code is missing.',
            'validation_failed',
          ),
        },
      },
      config: { role: 'viewer', beforePasswordChange: true, failuresCountAgainst: 'session' },
    },
    async (request) => {
      const now = app.clock.now()
      const { current_password, new_password, code } = request.body
      await changeOwnPassword(
        app.db,
        {
          operatorId: request.operator.id,
          sessionToken: request.cookies[SESSION_COOKIE] ?? '',
          currentPassword: current_password,
          newPassword: new_password,
          code,
          secretKey: app.config.consoleSecretKey,
        },
        { actor: { id: request.operator.id, email: request.operator.email }, ip: request.ip, now },
      )
      return {
        operator: { ...request.operator, password_change_required: false },
        time_zone: app.config.timeZone,
      }
    },
  )
}

export const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/session',
    {
      schema: {
        tags: ['Session'],
        operationId: 'getSession',
        summary: 'The signed-in operator',
        response: { 200: SessionState, ...guardedErrors(false) },
      },
      config: { role: 'viewer', beforePasswordChange: true },
    },
    async (request) => ({ operator: request.operator, time_zone: app.config.timeZone }),
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
          ...writeErrors,
        },
      },
    },
    async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE]
      if (token) await signOut(app.db, token, { now: app.clock.now(), ip: request.ip })
      reply.clearCookie(SESSION_COOKIE, cookieOptions(request))
      return reply.code(204).send(null)
    },
  )
}
