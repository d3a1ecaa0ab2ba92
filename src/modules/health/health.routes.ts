import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sql } from 'kysely'
import { Type } from 'typebox'
import { errorResponses } from '../../http/error-responses.js'
import { baseUrl } from '../../http/links.js'
import { API_NAME, API_VERSION } from '../../plugins/openapi.js'
import { ServiceUnavailableError } from '../../shared/errors.js'

const READY_TIMEOUT_MS = 2000

const Link = (description: string) => Type.String({ format: 'uri', description })
const ServiceIndex = Type.Object(
  {
    name: Type.String(),
    version: Type.String({ description: 'The API version, as the OpenAPI document gives it.' }),
    docs: Link('The API reference, in a browser.'),
    openapi: Link('The OpenAPI 3.1 document, for client generators.'),
    sdk: Link('The TypeScript client, for `npm install`.'),
    health: Link('Liveness: 200 while the process serves requests.'),
  },
  {
    examples: [
      {
        name: API_NAME,
        version: API_VERSION,
        docs: 'https://api.example.com/docs',
        openapi: 'https://api.example.com/openapi.json',
        sdk: 'https://api.example.com/sdk/amparo-client.tgz',
        health: 'https://api.example.com/health',
      },
    ],
  },
)

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/',
    {
      schema: {
        tags: ['Service'],
        operationId: 'getServiceIndex',
        summary: 'Where to start',
        description:
          'The service’s name and version, and where its reference, OpenAPI document, client and health check are. Needs no token.',
        security: [],
        response: { 200: ServiceIndex, ...errorResponses() },
      },
    },
    async (request) => {
      const base = baseUrl(request)
      return {
        name: API_NAME,
        version: API_VERSION,
        docs: `${base}/docs`,
        openapi: `${base}/openapi.json`,
        sdk: `${base}/sdk/amparo-client.tgz`,
        health: `${base}/health`,
      }
    },
  )

  app.get(
    '/health',
    {
      schema: {
        tags: ['Service'],
        operationId: 'getHealth',
        summary: 'Liveness',
        description: 'Answers 200 while the process serves requests, whatever the database. Needs no token.',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ok') }, { examples: [{ status: 'ok' }] }),
          ...errorResponses(),
        },
      },
    },
    async () => ({ status: 'ok' as const }),
  )

  app.get(
    '/ready',
    {
      schema: {
        tags: ['Service'],
        operationId: 'getReadiness',
        summary: 'Readiness',
        description:
          'Answers 200 when the database answers within 2 s, else 503 with `Retry-After`: a load balancer sends traffic only to ready processes. From SIGTERM on it answers 503, during the `AMPARO_DRAIN_SECONDS` the process keeps serving before it closes. Needs no token.',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ready') }, { examples: [{ status: 'ready' }] }),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      if (app.lifecycle.draining) throw new ServiceUnavailableError('Not ready: shutting down.')
      try {
        await withTimeout(sql`select 1`.execute(app.db), READY_TIMEOUT_MS)
        return { status: 'ready' as const }
      } catch (error) {
        request.log.warn({ err: error }, 'not ready: database unreachable')
        throw new ServiceUnavailableError('Not ready: the database is unreachable.')
      }
    },
  )
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
