import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponse, errorResponses } from '../../http/error-responses.js'
import { formatTimestamp } from '../../shared/time.js'
import { LoginBody, LoginResult } from './auth.schemas.js'
import { login } from './auth.service.js'
import { readLoginCredentials } from './login-credentials.js'

/** A login body holds four short strings: a larger one is refused (413) before it is read (README, Safe retries and limits). */
export const LOGIN_BODY_LIMIT = 16 * 1024

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/auth/login',
    {
      bodyLimit: LOGIN_BODY_LIMIT,
      schema: {
        tags: ['Authentication'],
        operationId: 'login',
        summary: 'Log in and obtain an access token',
        description: `Accepts, in this order of precedence: body \`{client_id, client_secret}\`;
body \`{email, password}\` (a partner user); header \`X-CREDENTIALS: base64(client_id:client_secret)\`;
header \`Authorization: Basic base64(client_id:client_secret)\`.

The response carries both shapes of the seed: \`access_token\` and \`token\` hold the same JWT.
Send it as \`Authorization: Bearer <token>\`. When any call answers 401, log in again.
Wrong credentials (unknown id, wrong secret, revoked credential) all answer the same 401.

After 10 failed logins in 15 minutes, an account (client id or e-mail) answers 429 until those
15 minutes are over, wherever the attempts come from; the partner's other credentials still log in.`,
        security: [],
        body: LoginBody,
        response: {
          200: LoginResult,
          ...errorResponses(400, 415, 422),
          413: errorResponse(413, 'The body is larger than 16 KiB.'),
          401: errorResponse(401, 'Wrong, unknown or revoked credentials (`WWW-Authenticate: Bearer`).'),
        },
      },
      config: {
        validationExample: { client_secret: ['The client secret field is required.'] },
        documentedHeaders: {
          'X-CREDENTIALS': {
            type: 'string',
            description:
              'Optional: `base64(client_id:client_secret)`, instead of the body or `Authorization: Basic`.',
          },
        },
      },
    },
    async (request) => {
      const credentials = readLoginCredentials(request.body, request.headers)
      const { token, expiresAt } = await login(app.db, app.tokens, credentials, app.config.env)
      return {
        access_token: token,
        token,
        token_type: 'Bearer' as const,
        expires_in: formatTimestamp(expiresAt, app.config.timeZone),
      }
    },
  )
}
