import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { consoleAnswers } from './console.schemas.js'
import { SearchQuery, SearchResult } from './search.schemas.js'
import { search } from './search.service.js'

export const searchRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, clock } = app

  app.get(
    '/api/search',
    {
      config: { role: 'viewer' },
      schema: {
        tags: ['Search'],
        operationId: 'search',
        summary: 'Find a customer and every contract',
        description:
          'By CPF/CNPJ, IMEI or serial, policy number, claim number, or subscription or annual-plan id → each person found, as a customer of each partner, with every contract under every partner.',
        querystring: SearchQuery,
        response: { 200: SearchResult, ...consoleAnswers(false, 422) },
      },
    },
    async (request) => search(db, request.query.q, clock.now().toISOString()),
  )
}
