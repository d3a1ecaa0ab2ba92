import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { consoleAnswers } from './console.schemas.js'
import { DisputePage, DisputeQuery } from './disputes.schemas.js'
import { disputePage } from './disputes.service.js'

export const disputesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app

  app.get(
    '/api/disputes',
    {
      config: { role: 'viewer' },
      schema: {
        tags: ['Disputes'],
        operationId: 'listConsoleDisputes',
        summary: 'Chargebacks (Stripe disputes)',
        description:
          'Disputes Stripe reported on charges through the own gateway, the nearest evidence deadline first (none last).',
        querystring: DisputeQuery,
        response: { 200: DisputePage, ...consoleAnswers(false, 422) },
      },
    },
    async (request) => {
      const { status, page, per_page } = request.query
      return disputePage(db, status, { page, perPage: per_page })
    },
  )
}
