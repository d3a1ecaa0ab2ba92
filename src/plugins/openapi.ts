import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { documentRoute, documentWhole } from './openapi-transforms.js'

export interface ServedRoute {
  method: string
  url: string
  hidden: boolean
}

declare module 'fastify' {
  interface FastifyInstance {
    servedRoutes: ServedRoute[]
  }
}

const description = `Partner webservice for device protection plans.

Log in with \`POST /auth/login\`, then send \`Authorization: Bearer <token>\` on every call.
Every list and resource is scoped to the authenticated partner; another partner's ids answer 404.

Conventions: money is a JSON number in BRL with at most two decimals; timestamps are
\`YYYY-MM-DD HH:MM:SS\` in the service time zone (America/Sao_Paulo by default); documents,
phones and zip codes are accepted formatted or bare and returned bare. Errors carry
\`{"code", "message", "request_id"}\`: branch on \`code\` (each response lists the codes it can
answer), quote \`request_id\` (the \`X-Request-Id\` header) to support; 422 adds \`errors\` keyed by
the dot path of each offending input.`

/** The reference's logo and icon: Amparo's shield and name, not the framework's. */
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="220" height="40" viewBox="0 0 220 40">
<path d="M20 3 L35 9 V20 C35 29 28 35 20 38 C12 35 5 29 5 20 V9 Z" fill="#1b6e5a"/>
<path d="M13 20 L18 25 L27 15" stroke="#fff" stroke-width="3" fill="none"/>
<text x="44" y="27" font-family="sans-serif" font-size="18" fill="#ffffff">Amparo API reference</text>
</svg>`

/** The API's name and version, as the OpenAPI document and `GET /` give them. */
/**
 * What an app serves, as registered (`app.servedRoutes`): the OpenAPI tests check the document
 * lists all of it, and the response checks skip the hidden routes. Before any route is added.
 */
export function trackServedRoutes(app: FastifyInstance): void {
  const served: ServedRoute[] = []
  app.decorate('servedRoutes', served)
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      served.push({ method, url: route.url, hidden: Boolean(route.schema?.hide) })
    }
  })
}

export const API_NAME = 'Amparo partner API'
export const API_VERSION = '1.0.0'

export interface OpenapiOptions {
  /** The document's `webhooks`: the requests the service sends (modules/events, eventWebhooks). */
  webhooks?: Record<string, unknown>
}

/** OpenAPI 3.1, generated from the route schemas, at /openapi.json; the reference UI at /docs. */
export const openapiPlugin = fp<OpenapiOptions>(
  async (app, { webhooks }) => {
    trackServedRoutes(app)
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: API_NAME, version: API_VERSION, description },
        // Without AMPARO_PUBLIC_URL the document's own address is the base: OpenAPI's default `/`,
        // said explicitly, since linters and some generators take a missing list for an omission.
        servers: [
          app.config.publicUrl
            ? { url: app.config.publicUrl }
            : { url: '/', description: 'The address this document was fetched from.' },
        ],
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          },
        },
        security: [{ bearerAuth: [] }],
        ...(webhooks && { webhooks }),
        tags: [
          { name: 'Authentication', description: 'Obtain an access token.' },
          { name: 'Devices', description: 'Brands and models this partner may sell.' },
          { name: 'Customers', description: 'The insured parties, per partner.' },
          { name: 'Plans', description: 'Protection plans and quotations.' },
          { name: 'Subscriptions', description: 'Monthly protection paid in installments.' },
          { name: 'Annual plans', description: '12 months of protection for a single payment.' },
          {
            name: 'Claims',
            description:
              'Sinistros: the insured’s claims on a contract in force, their documents and decision.',
          },
          { name: 'Events', description: 'What changed, in order: the feed partners poll.' },
          {
            name: 'Webhooks',
            description:
              'The endpoints that receive events as they happen, their deliveries, and (under `webhooks`) each event the service sends them, signed (Standard Webhooks 1.0).',
          },
          {
            name: 'Shopkeepers',
            description: 'The partner’s stores: its matrix and the branches it registers.',
          },
          {
            name: 'Sandbox',
            description:
              'Test environment only: each partner’s own clock, to try months of recurrence in minutes.',
          },
          { name: 'Service', description: 'Liveness and the API description.' },
          { name: 'Payments', description: 'What a customer pays with: the QR image of a PIX code.' },
          {
            name: 'Stripe',
            description:
              'Stripe’s own events, for the endpoint registered at Stripe (own gateway); not for partners.',
          },
        ],
      },
      transform: documentRoute,
      transformObject: documentWhole,
      // Shared schemas keep their own names in components.schemas.
      refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    })
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: true,
      // The default policy's `upgrade-insecure-requests` makes a browser fetch every asset over https:
      // /docs opened over plain http from another machine (a container on HOST=0.0.0.0) stayed blank.
      // Over https the assets are same-origin https already, so dropping it loses nothing.
      transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
      theme: {
        title: 'Amparo API reference',
        favicon: [
          { filename: 'amparo.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: LOGO },
        ],
      },
      logo: { type: 'image/svg+xml', content: LOGO, href: '/docs' },
      // No call to validator.swagger.io: the page works offline and tells no third party it was opened.
      // `filter`: a search box over the operations, by tag.
      uiConfig: { validatorUrl: null, filter: true },
    })
    app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger())
  },
  { name: 'openapi' },
)
