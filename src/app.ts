import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyRequest, type FastifyServerOptions } from 'fastify'
import type { Config } from './config.js'
import type { Db } from './db/database.js'
import { sharedSchemas } from './http/error-responses.js'
import { resourceSchemas } from './http/http-schemas.js'
import { buildSerializer } from './http/serialization.js'
import { validatorCompiler } from './http/validation.js'
import { annualPlanRoutes } from './modules/annual-plans/annual-plan.routes.js'
import { annualPlanCancellationRoutes } from './modules/annual-plans/annual-plan-cancellation.routes.js'
import { annualPlanCodeRoutes } from './modules/annual-plans/annual-plan-code.routes.js'
import { annualPlanPaymentRoutes } from './modules/annual-plans/annual-plan-payment.routes.js'
import { authRoutes } from './modules/auth/auth.routes.js'
import { loadSigningKeys, TokenService, tokenAudience } from './modules/auth/auth.service.js'
import { catalogRoutes } from './modules/catalog/catalog.routes.js'
import {
  certificateRoutes,
  certificateVerificationRoutes,
} from './modules/certificates/certificate.routes.js'
import { claimRoutes } from './modules/claims/claim.routes.js'
import { claimDocumentRoutes } from './modules/claims/claim-document.routes.js'
import { customerRoutes } from './modules/customers/customer.routes.js'
import { eventRoutes } from './modules/events/event.routes.js'
import { eventWebhooks } from './modules/events/event.schemas.js'
import { renderingContext } from './modules/events/event.service.js'
import { stripeWebhookRoutes } from './modules/gateway-events/gateway-event.routes.js'
import { healthRoutes } from './modules/health/health.routes.js'
import { gatewayOf } from './modules/payments/gateway-factory.js'
import { pixImageRoutes } from './modules/payments/payment-code.routes.js'
import type { PaymentGateway } from './modules/payments/payment-gateway.js'
import { planRoutes } from './modules/plans/plan.routes.js'
import { sandboxClaimRoutes } from './modules/sandbox/sandbox-claims.routes.js'
import { sandboxClockRoutes } from './modules/sandbox/sandbox-clock.routes.js'
import { sandboxMessageRoutes } from './modules/sandbox/sandbox-messages.routes.js'
import { sandboxPaymentRoutes } from './modules/sandbox/sandbox-payments.routes.js'
import { sdkRoutes } from './modules/sdk/sdk.routes.js'
import { shopkeeperRoutes } from './modules/shopkeepers/shopkeeper.routes.js'
import { subscriptionRoutes } from './modules/subscriptions/subscription.routes.js'
import { subscriptionCancellationRoutes } from './modules/subscriptions/subscription-cancellation.routes.js'
import { subscriptionCodeRoutes } from './modules/subscriptions/subscription-code.routes.js'
import { subscriptionPaymentRoutes } from './modules/subscriptions/subscription-payment.routes.js'
import { eventRedeliveryRoutes, webhookEndpointRoutes } from './modules/webhooks/webhook-endpoint.routes.js'
import { capConnectionsPerAddress } from './plugins/connections.js'
import { authenticated, contextPlugin } from './plugins/context.js'
import { errorsPlugin } from './plugins/errors.js'
import { httpPlugin } from './plugins/http.js'
import { idempotency } from './plugins/idempotency.js'
import { loggerOptions } from './plugins/logging.js'
import type { Metrics } from './plugins/metrics.js'
import { openapiPlugin } from './plugins/openapi.js'
import { loginRateLimit, partnerRateLimit, redeliveryRateLimit } from './plugins/rate-limits.js'
import { connectRedis } from './plugins/redis.js'
import { expectationFailed, serverOptions } from './plugins/server-options.js'
import { unitOfWork } from './plugins/unit-of-work.js'
import { type Clock, systemClock } from './shared/time.js'
import { sandboxPartnerJobs } from './worker/worker.js'

export interface AppOptions {
  config: Readonly<Config>
  /** A migrated database; the caller owns it and closes it. */
  db: Db
  clock?: Clock
  /** The own card gateway; by default the one the config names. */
  gateway?: PaymentGateway | null
  /** Prometheus metrics of this process; none recorded when absent. */
  metrics?: Metrics
  /** Overrides the logger built from the config. */
  logger?: FastifyServerOptions['logger']
  /** Where the logger built from the config writes (default stdout): tests capture the real, redacted logs. */
  logStream?: { write(line: string): void }
  /** Called right after a request's write transaction commits: tests' fault injection (docs/decisions.md). */
  afterCommit?: (request: FastifyRequest) => void
  /** Where the packed TypeScript client is (default the project's dist/sdk/): tests give their own. */
  sdkDirectory?: string
}

export async function buildApp({
  config,
  db,
  clock = systemClock,
  gateway,
  metrics,
  logger,
  logStream,
  afterCommit,
  sdkDirectory,
}: AppOptions) {
  const app = Fastify({
    ...serverOptions(config, logger ?? loggerOptions(config.logLevel, logStream)),
    schemaController: { compilersFactory: { buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>()
  // Past it, Node closes a new connection at once: slow clients cannot hold every socket there is.
  app.server.maxConnections = config.connections.max
  capConnectionsPerAddress(app.server, config.connections.maxPerAddress, config.trustProxy)

  app.server.on('checkExpectation', expectationFailed)
  app.setValidatorCompiler(validatorCompiler)
  for (const schema of [...sharedSchemas, ...resourceSchemas()]) app.addSchema(schema)

  const signingKeys = await loadSigningKeys(db, config, clock)
  const tokens = new TokenService(signingKeys, config.tokenTtlSeconds, clock, tokenAudience(config.env))
  await app.register(contextPlugin, {
    config,
    db,
    clock,
    tokens,
    gateway: gateway === undefined ? await gatewayOf(config, db) : gateway,
  })
  await app.register(errorsPlugin)
  await app.register(unitOfWork, { afterCommit })
  if (metrics) await app.register((await import('./plugins/metrics.js')).metricsPlugin, { metrics })
  await app.register(httpPlugin)
  await app.register(openapiPlugin, { webhooks: eventWebhooks() })

  const redis = config.redisUrl ? await connectRedis(app, config.redisUrl) : null

  await app.register(healthRoutes)
  await app.register(certificateVerificationRoutes)
  await app.register(sdkRoutes, { directory: sdkDirectory })
  await app.register(stripeWebhookRoutes)
  await app.register(pixImageRoutes)
  await app.register(async (loginScope) => {
    await loginRateLimit(loginScope, { max: config.rateLimits.loginPerClient, redis })
    await loginScope.register(authRoutes)
  })
  await app.register(async (partnerScope) => {
    await partnerScope.register(authenticated)
    await partnerRateLimit(partnerScope, { max: config.rateLimits.perPartner, redis })
    await partnerScope.register(idempotency, { secrets: signingKeys.map((k) => k.secret) })
    await partnerScope.register(catalogRoutes)
    await partnerScope.register(customerRoutes)
    await partnerScope.register(planRoutes)
    await partnerScope.register(shopkeeperRoutes)
    await partnerScope.register(subscriptionRoutes)
    await partnerScope.register(subscriptionPaymentRoutes)
    await partnerScope.register(subscriptionCodeRoutes)
    await partnerScope.register(subscriptionCancellationRoutes)
    await partnerScope.register(annualPlanRoutes)
    await partnerScope.register(annualPlanPaymentRoutes)
    await partnerScope.register(annualPlanCodeRoutes)
    await partnerScope.register(annualPlanCancellationRoutes)
    await partnerScope.register(certificateRoutes)
    await partnerScope.register(claimRoutes)
    await partnerScope.register(claimDocumentRoutes)
    await partnerScope.register(eventRoutes)
    await partnerScope.register(webhookEndpointRoutes)
    await partnerScope.register(async (redeliveries) => {
      await redeliveryRateLimit(redeliveries, { redis })
      await redeliveries.register(eventRedeliveryRoutes)
    })
    // The sandbox test clock exists only in the test environment (docs/decisions.md, Sandbox test clock).
    if (config.env === 'test') {
      const jobs = sandboxPartnerJobs({
        gateway: app.gateway,
        timeZone: config.timeZone,
        claimSeconds: config.paymentClaimSeconds,
        concurrency: config.recurrenceConcurrency,
        base: renderingContext(config).base,
      })
      await partnerScope.register(sandboxClockRoutes, { jobs })
      await partnerScope.register(sandboxClaimRoutes)
      await partnerScope.register(sandboxMessageRoutes)
      await partnerScope.register(sandboxPaymentRoutes)
    }
  })

  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
