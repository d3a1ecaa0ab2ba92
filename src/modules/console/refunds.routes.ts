import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { commit } from '../../plugins/unit-of-work.js'
import { renderingContext } from '../events/event.service.js'
import { consoleAnswers } from './console.schemas.js'
import { actor } from './console-actor.js'
import { RefundPage, RefundParams, RefundQuery, RetriedRefund } from './refunds.schemas.js'
import { refundPage, retryRefund } from './refunds.service.js'

const tags = ['Refunds']

export const refundsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, clock } = app

  app.get(
    '/api/refunds',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        operationId: 'listConsoleRefunds',
        summary: 'Refunds pending or failed',
        description:
          'Refunds of annual plans paid through the own gateway that are not paid yet, oldest first.',
        querystring: RefundQuery,
        response: { 200: RefundPage, ...consoleAnswers(false, 422) },
      },
    },
    async (request) => {
      const { status, page, per_page } = request.query
      return refundPage(db, status, { page, perPage: per_page })
    },
  )

  app.post(
    '/api/refunds/:id/retry',
    {
      config: { role: 'admin' },
      schema: {
        tags,
        operationId: 'retryConsoleRefund',
        summary: 'Retry a failed refund',
        description:
          'As `amparo refund retry`: the failed refund is pending again, due at once, with 3 more days of retries. Not failed → 422 `invalid_state`. Audited.',
        params: RefundParams,
        response: { 200: RetriedRefund, ...consoleAnswers(true, 404, 'invalid_state') },
      },
    },
    async (request, reply) =>
      commit(reply, (trx) =>
        retryRefund(
          trx,
          actor(request),
          { refundId: request.params.id },
          clock.now().toISOString(),
          renderingContext(config),
        ),
      ),
  )
}
