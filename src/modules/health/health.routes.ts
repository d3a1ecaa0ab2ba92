import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sql } from 'kysely'
import { Type } from 'typebox'
import { errorResponses } from '../../http/http-schemas.js'
import { ServiceUnavailableError } from '../../shared/errors.js'

const READY_TIMEOUT_MS = 2000

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
