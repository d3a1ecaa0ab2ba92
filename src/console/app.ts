import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import cookie from '@fastify/cookie'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyServerOptions } from 'fastify'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import { ValidationErrorSchema } from '../http/error-responses.js'
import { validatorCompiler } from '../http/validation.js'
import { loadSigningKeys, TokenService, tokenAudience } from '../modules/auth/auth.service.js'
import { claimWorkRoutes } from '../modules/console/claim-work.routes.js'
import { claimsDeskRoutes } from '../modules/console/claims-desk.routes.js'
import { customerMessageRoutes } from '../modules/console/customer-messages.routes.js'
import { dashboardRoutes } from '../modules/console/dashboard.routes.js'
import { disputesRoutes } from '../modules/console/disputes.routes.js'
import { partnersRoutes } from '../modules/console/partners.routes.js'
import { refundsRoutes } from '../modules/console/refunds.routes.js'
import { searchRoutes } from '../modules/console/search.routes.js'
import { operatorRoutes } from '../modules/operators/operator.routes.js'
import { sessionRoutes, signInRoutes } from '../modules/operators/session.routes.js'
import { gatewayOf } from '../modules/payments/gateway-factory.js'
import type { PaymentGateway } from '../modules/payments/payment-gateway.js'
import { capConnectionsPerAddress } from '../plugins/connections.js'
import { contextPlugin } from '../plugins/context.js'
import { errorsPlugin } from '../plugins/errors.js'
import { httpPlugin } from '../plugins/http.js'
import { loggerOptions } from '../plugins/logging.js'
import { trackServedRoutes } from '../plugins/openapi.js'
import { loginRateLimit } from '../plugins/rate-limits.js'
import { connectRedis } from '../plugins/redis.js'
import { serverOptions } from '../plugins/server-options.js'
import { unitOfWork } from '../plugins/unit-of-work.js'
import { type Clock, systemClock } from '../shared/time.js'
import { ConsoleErrorSchema } from './console-schemas.js'
import { CONSOLE_CHALLENGE, consoleGuard, operatorSignInAccount } from './guard.js'
import { consoleStatic } from './static.js'

export interface ConsoleAppOptions {
  config: Readonly<Config>
  /** A migrated database; the caller owns it and closes it. */
  db: Db
  clock?: Clock
  /** The own card gateway; by default the one the config names. */
  gateway?: PaymentGateway | null
  logger?: FastifyServerOptions['logger']
  /** The built console (`dist/console-web/`); by default found beside the bundle or under the working folder. */
  staticRoot?: string | null
}

/**
 * The operator console (README, Operator console): a Fastify instance of its own, on its own
 * listener, never on the partners' address. The operator JSON API is under `/api/` (its document at
 * `GET /api/openapi.json`), the built single-page app at `/`. Same error bodies, JSON parsing and
 * context as the partner API; its own authentication (server-side sessions, roles: guard.ts).
 */
export async function buildConsoleApp({
  config,
  db,
  clock = systemClock,
  gateway,
  logger,
  staticRoot = findStaticRoot(),
}: ConsoleAppOptions) {
  const app = Fastify(
    serverOptions(config, logger ?? loggerOptions(config.logLevel)),
  ).withTypeProvider<TypeBoxTypeProvider>()
  // The partner API's caps (README, AMPARO_MAX_CONNECTIONS_PER_ADDRESS): idle sockets from one
  // address must not take every place an operator could connect to.
  app.server.maxConnections = config.connections.max
  capConnectionsPerAddress(app.server, config.connections.maxPerAddress, config.trustProxy)

  trackServedRoutes(app)
  app.setValidatorCompiler(validatorCompiler)
  app.addSchema(ConsoleErrorSchema)
  app.addSchema(ValidationErrorSchema)

  const signingKeys = await loadSigningKeys(db, config, clock)
  await app.register(contextPlugin, {
    config,
    db,
    clock,
    tokens: new TokenService(signingKeys, config.tokenTtlSeconds, clock, tokenAudience(config.env)),
    gateway: gateway === undefined ? await gatewayOf(config, db) : gateway,
  })
  await app.register(errorsPlugin, { challenge: CONSOLE_CHALLENGE })
  await app.register(unitOfWork, {})
  await app.register(httpPlugin)
  await app.register(cookie)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Amparo operator console API',
        version: '1.0.0',
        description:
          'The JSON API of the operator console (README, Operator console): same-origin only, signed in with the `amparo_console` session cookie.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'amparo_console' } } },
      security: [{ session: [] }],
    },
    // The shared error bodies keep their names in components.schemas (`Error`, `ValidationError`).
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
  await app.register(consoleGuard)

  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  const redis = config.redisUrl ? await connectRedis(app, config.redisUrl) : null
  await app.register(async (signIn) => {
    await loginRateLimit(signIn, {
      max: config.rateLimits.loginPerClient,
      redis,
      accountOf: operatorSignInAccount(db),
    })
    await signIn.register(signInRoutes)
  })
  await app.register(sessionRoutes)
  // The console's data (README, Operator console).
  await app.register(dashboardRoutes)
  await app.register(claimsDeskRoutes)
  await app.register(claimWorkRoutes)
  await app.register(searchRoutes)
  await app.register(customerMessageRoutes)
  await app.register(partnersRoutes)
  await app.register(refundsRoutes)
  await app.register(disputesRoutes)
  await app.register(operatorRoutes)

  await app.register(consoleStatic, { root: staticRoot })
  return app
}

export type ConsoleApp = Awaited<ReturnType<typeof buildConsoleApp>>

/** `dist/console-web/` beside the bundle (`dist/amparo.mjs`), else under the working folder. */
function findStaticRoot(): string | null {
  const candidates = [fileURLToPath(new URL('./console-web', import.meta.url)), resolve('dist/console-web')]
  return candidates.find((folder) => existsSync(join(folder, 'index.html'))) ?? null
}
