import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponses } from '../../shared/http-schemas.js'

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['Service'],
        summary: 'Liveness',
        description: 'Answers 200 while the process serves requests. Needs no token.',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ok') }, { examples: [{ status: 'ok' }] }),
          ...errorResponses(),
        },
      },
    },
    async () => ({ status: 'ok' as const }),
  )
}
