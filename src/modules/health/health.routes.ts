import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

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
        },
      },
    },
    async () => ({ status: 'ok' as const }),
  )
}
