import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { consoleError } from '../../console/console-schemas.js'
import { PORTAL_COOKIE, portalCookieOptions } from '../../portal/guard.js'
import { normalizeDocument } from '../../shared/documents.js'
import { ValidationError } from '../../shared/errors.js'
import {
  CodeRequestBody,
  CodeSent,
  CodeSignInBody,
  Insured,
  LinkSignInBody,
  portalErrors,
} from './portal.schemas.js'
import {
  insuredProfile,
  requestSignInCode,
  type SignInDelivery,
  signInWithCode,
} from './portal-session.service.js'
import { CODE_TTL_MS, PORTAL_ABSOLUTE_MS, readCode } from './portal-sign-in.rules.js'
import { signInWithLink } from './portal-sign-in-link.service.js'

const LOGIN_BODY_LIMIT = 16 * 1024

function documentOf(input: string): string {
  const document = normalizeDocument(input)
  if (!document) throw ValidationError.field('document', 'The document must be a valid CPF or CNPJ.')
  return document.value
}

export interface PortalSignInOptions {
  /** Six digits; tests give their own to know the code the message carries. */
  newCode: () => string
  deliver: SignInDelivery
}

const tooManyFromAddress = consoleError(
  'Too many sign-in requests from this address in the last minute (`Retry-After`).',
  'rate_limited',
)

/**
 * Signing in (README, Portal do segurado): a code sent by e-mail, or the single-use link a message
 * carries. Registered in a scope of its own, under the per-address limit of the portal's sign-in.
 */
export const portalSignInRoutes: FastifyPluginAsyncTypebox<PortalSignInOptions> = async (app, options) => {
  app.post(
    '/api/session/code',
    {
      bodyLimit: LOGIN_BODY_LIMIT,
      schema: {
        tags: ['Session'],
        operationId: 'requestSignInCode',
        summary: 'Send a sign-in code to the address on file',
        description: `A 6-digit code, valid 10 minutes and 5 tries, goes by e-mail to the address the CPF/CNPJ has on
file; the answer shows it masked. The same answer (a made-up masked address) for a document nobody holds.
At most 5 codes an hour per document (then 429 with \`Retry-After\`) and per address (past it nothing is sent).`,
        body: CodeRequestBody,
        response: {
          200: CodeSent,
          422: consoleError('The document is not a valid CPF or CNPJ.', 'validation_failed'),
          429: consoleError(
            'Too many codes for this document in the last hour, or sign-in requests from this address in the last minute.',
            'rate_limited',
          ),
          ...portalErrors,
        },
      },
    },
    async (request) => {
      const sent = await requestSignInCode(app.db, {
        document: documentOf(request.body.document),
        now: app.clock.now(),
        maskKey: app.config.consoleSecretKey,
        newCode: options.newCode,
        deliver: options.deliver,
      })
      return { ...sent, expires_in_seconds: CODE_TTL_MS / 1000 }
    },
  )

  app.post(
    '/api/session',
    {
      bodyLimit: LOGIN_BODY_LIMIT,
      schema: {
        tags: ['Session'],
        operationId: 'signIn',
        summary: 'Sign in with the code',
        description: `Opens a session (cookie \`amparo_portal\`, HttpOnly, SameSite=Strict, Secure in production; 30
minutes idle). A wrong, expired, used or exhausted code → 401 \`invalid_credentials\`.`,
        body: CodeSignInBody,
        response: {
          200: Insured,
          401: consoleError('Wrong, expired or used code.', 'invalid_credentials'),
          422: consoleError('The document or the code is malformed.', 'validation_failed'),
          429: tooManyFromAddress,
          ...portalErrors,
        },
      },
    },
    async (request, reply) => {
      const document = documentOf(request.body.document)
      const code = readCode(request.body.code)
      if (code === null) throw ValidationError.field('code', 'The code must be 6 digits.')
      const { token } = await signInWithCode(app.db, { document, code, now: app.clock.now(), ip: request.ip })
      reply.setCookie(PORTAL_COOKIE, token, {
        ...portalCookieOptions(request),
        maxAge: PORTAL_ABSOLUTE_MS / 1000,
      })
      return { ...(await insuredProfile(app.db, { document })), time_zone: app.config.timeZone }
    },
  )

  app.post(
    '/api/session/link',
    {
      bodyLimit: LOGIN_BODY_LIMIT,
      schema: {
        tags: ['Session'],
        operationId: 'signInWithLink',
        summary: 'Sign in with the single-use link a message carries',
        description: `The token of the link (\`{portal}/#/entrar/<token>\`, in the fragment: no server ever sees it
when the link is opened), sent by the page. Valid 24 hours and once; opens a session as the code's sign-in does.
An unknown, used or expired link → the same 401 \`invalid_credentials\`.`,
        body: LinkSignInBody,
        response: {
          200: Insured,
          401: consoleError('Unknown, used or expired link.', 'invalid_credentials'),
          422: consoleError('No token in the body.', 'validation_failed'),
          429: tooManyFromAddress,
          ...portalErrors,
        },
      },
    },
    async (request, reply) => {
      const { token, document } = await signInWithLink(app.db, {
        token: request.body.token,
        now: app.clock.now(),
        ip: request.ip,
      })
      reply.setCookie(PORTAL_COOKIE, token, {
        ...portalCookieOptions(request),
        maxAge: PORTAL_ABSOLUTE_MS / 1000,
      })
      return { ...(await insuredProfile(app.db, { document })), time_zone: app.config.timeZone }
    },
  )
}
