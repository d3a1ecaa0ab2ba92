import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import cookie from '@fastify/cookie'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyServerOptions } from 'fastify'
import type { Config } from '../config.js'
import { ConsoleErrorSchema } from '../console/console-schemas.js'
import { consoleStatic } from '../console/static.js'
import type { Db } from '../db/database.js'
import { ValidationErrorSchema } from '../http/error-responses.js'
import { resourceSchemas } from '../http/http-schemas.js'
import { validatorCompiler } from '../http/validation.js'
import { loadSigningKeys, TokenService, tokenAudience } from '../modules/auth/auth.service.js'
import { queueSignInMessage } from '../modules/messages/message.service.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import { portalRoutes } from '../modules/portal/portal.routes.js'
import { portalPayingRoutes } from '../modules/portal/portal-paying.routes.js'
import { portalSessionRoutes } from '../modules/portal/portal-session.routes.js'
import { type PortalSignInOptions, portalSignInRoutes } from '../modules/portal/portal-sign-in.routes.js'
import { newSignInCode } from '../modules/portal/sign-in-code.js'
import { contextPlugin } from '../plugins/context.js'
import { errorsPlugin } from '../plugins/errors.js'
import { httpPlugin } from '../plugins/http.js'
import { loggerOptions } from '../plugins/logging.js'
import { trackServedRoutes } from '../plugins/openapi.js'
import { portalSignInRateLimit } from '../plugins/rate-limits.js'
import { connectRedis } from '../plugins/redis.js'
import { serverOptions } from '../plugins/server-options.js'
import { unitOfWork } from '../plugins/unit-of-work.js'
import { type Clock, systemClock } from '../shared/time.js'
import { PORTAL_CHALLENGE, portalGuard } from './guard.js'

/** The partner API's resources the portal's document shows too. */
const SHARED_RESOURCES = new Set(['Claim', 'ClaimDocument'])

export interface PortalAppOptions {
  config: Readonly<Config>
  /** A migrated database; the caller owns it and closes it. */
  db: Db
  clock?: Clock
  /** The own card gateway the partner API uses (the insured pays through it); null without card payments. */
  gateway?: PaymentGateway | null
  logger?: FastifyServerOptions['logger']
  /** The built portal (`dist/portal-web/`); by default found beside the bundle or under the working folder. */
  staticRoot?: string | null
  /** Sign-in codes: how they are made, and how they reach the insured (the sign-in message by default). */
  signIn?: Partial<PortalSignInOptions>
}

/**
 * The insured's own page (README, Portal do segurado): a Fastify instance on a listener of its own,
 * as the console is. Its JSON API under `/api/` (document at `GET /api/openapi.json`), the built
 * single-page app at `/`; signed in with the `amparo_portal` session cookie (guard.ts).
 */
export async function buildPortalApp({
  config,
  db,
  clock = systemClock,
  gateway = null,
  logger,
  staticRoot = findStaticRoot(),
  signIn = {},
}: PortalAppOptions) {
  const app = Fastify(
    serverOptions(config, logger ?? loggerOptions(config.logLevel)),
  ).withTypeProvider<TypeBoxTypeProvider>()

  trackServedRoutes(app)
  app.setValidatorCompiler(validatorCompiler)
  app.addSchema(ConsoleErrorSchema)
  app.addSchema(ValidationErrorSchema)
  for (const schema of resourceSchemas())
    if (SHARED_RESOURCES.has(String((schema as { $id?: string }).$id))) app.addSchema(schema)

  const signingKeys = await loadSigningKeys(db, config, clock)
  await app.register(contextPlugin, {
    config,
    db,
    clock,
    tokens: new TokenService(signingKeys, config.tokenTtlSeconds, clock, tokenAudience(config.env)),
    gateway,
  })
  await app.register(errorsPlugin, { challenge: PORTAL_CHALLENGE })
  await app.register(unitOfWork, {})
  await app.register(httpPlugin)
  await app.register(cookie)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Amparo insured portal API',
        version: '1.0.0',
        description:
          'The JSON API of the insured’s own page (README, Portal do segurado): same-origin only, signed in with the `amparo_portal` session cookie after a code sent by e-mail or a single-use link a message carried.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'amparo_portal' } } },
      security: [{ session: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
  await app.register(portalGuard)

  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  const redis = config.redisUrl ? await connectRedis(app, config.redisUrl) : null
  await app.register(async (scope) => {
    await portalSignInRateLimit(scope, { max: config.rateLimits.loginPerClient, redis })
    await scope.register(portalSignInRoutes, {
      newCode: signIn.newCode ?? newSignInCode,
      // The code reaches the insured only by the sign-in message (kept, not sent, in test without a mail server).
      deliver: signIn.deliver ?? queueSignInMessage,
    })
  })
  await app.register(portalSessionRoutes)
  await app.register(portalRoutes)
  await app.register(portalPayingRoutes)
  await app.register(consoleStatic, { root: staticRoot, name: 'The insured’s portal' })
  return app
}

export type PortalApp = Awaited<ReturnType<typeof buildPortalApp>>

/** `dist/portal-web/` beside the bundle (`dist/amparo.mjs`), else under the working folder. */
function findStaticRoot(): string | null {
  const candidates = [fileURLToPath(new URL('./portal-web', import.meta.url)), resolve('dist/portal-web')]
  return candidates.find((folder) => existsSync(join(folder, 'index.html'))) ?? null
}
