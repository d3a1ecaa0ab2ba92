import swagger, { type SwaggerTransform } from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'

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
\`{"message"}\`, and 422 adds \`errors\` keyed by the dot path of each offending input.`

type QuerySchema = { required?: string[]; properties?: Record<string, { default?: unknown }> }

/**
 * What the route schemas cannot say by themselves:
 * - a query parameter with a default (page, per_page) is filled in by validation, so it stays in
 *   the schema's `required` list and the handlers' types; a client may leave it out, so the
 *   document must not mark it required (generated clients would demand it);
 * - headers read by hooks or handlers (`config.documentedHeaders`: Idempotency-Key, X-CREDENTIALS).
 */
const documented: SwaggerTransform = ({ schema, url, route }) => {
  if (!schema) return { schema, url }
  const result = { ...schema }
  const query = schema.querystring as QuerySchema | undefined
  if (query?.required) {
    const required = query.required.filter((name) => query.properties?.[name]?.default === undefined)
    result.querystring = { ...query, required }
  }
  const headers = route.config?.documentedHeaders
  if (headers) result.headers = { type: 'object', properties: headers }
  return { schema: result, url }
}

/** OpenAPI 3.1, generated from the route schemas, at /openapi.json; the reference UI at /docs. */
export const openapiPlugin = fp(
  async (app) => {
    // What the app serves, as registered: the OpenAPI test checks the document lists all of it.
    const served: ServedRoute[] = []
    app.decorate('servedRoutes', served)
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        served.push({ method, url: route.url, hidden: Boolean(route.schema?.hide) })
      }
    })
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Amparo partner API', version: '1.0.0', description },
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          },
        },
        security: [{ bearerAuth: [] }],
        tags: [
          { name: 'Authentication', description: 'Obtain an access token.' },
          { name: 'Devices', description: 'Brands and models this partner may sell.' },
          { name: 'Customers', description: 'The insured parties, per partner.' },
          { name: 'Plans', description: 'Protection plans and quotations.' },
          { name: 'Subscriptions', description: 'Monthly protection paid in installments.' },
          { name: 'Annual plans', description: '12 months of protection for a single payment.' },
          {
            name: 'Shopkeepers',
            description: 'The partner’s stores: its matrix and the branches it registers.',
          },
          { name: 'Service', description: 'Liveness and the API description.' },
        ],
      },
      transform: documented,
      // Shared schemas keep their own names in components.schemas.
      refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    })
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true })
    app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger())
  },
  { name: 'openapi' },
)
