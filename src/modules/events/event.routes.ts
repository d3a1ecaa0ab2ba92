import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../http/error-responses.js'
import { Event, EventList, EventListQuery, EventParams } from './event.schemas.js'
import { EVENT_RETENTION_DAYS, listEvents, showEvent } from './event.service.js'

const tags = ['Events']

export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app

  app.get(
    '/events',
    {
      schema: {
        tags,
        operationId: 'listEvents',
        summary: 'List events',
        description: `What changed in the partner's subscriptions, installments and annual plans, oldest
first; each event is written in the same transaction as the change it describes. Kept
${EVENT_RETENTION_DAYS} days.

To follow them, poll with \`after\` set to the last id you received: you get every event exactly
once and in order, also when changes made at the same moment commit in another order than they
started (an event becomes visible only after every event before it in this feed). \`has_more\`: ask
again at once. \`type\` keeps one type (the cursor still moves over all of them). An \`after\` that is
not one of your events of the last ${EVENT_RETENTION_DAYS} days, an unknown \`type\`, or a \`limit\` outside
1–100 → 422 under that field.`,
        querystring: EventListQuery,
        response: { 200: EventList, ...errorResponses(401, 422) },
      },
    },
    async (request) => listEvents(db, request.partner.partnerId, request.query, config.timeZone),
  )

  app.get(
    '/events/:id',
    {
      schema: {
        tags,
        operationId: 'getEvent',
        summary: 'Get an event',
        description: 'One event of the partner; another partner’s, an unknown or a purged one → 404.',
        params: EventParams,
        response: { 200: Event, ...errorResponses(401, 404) },
      },
    },
    async (request) => showEvent(db, request.partner.partnerId, request.params.id, config.timeZone),
  )
}
