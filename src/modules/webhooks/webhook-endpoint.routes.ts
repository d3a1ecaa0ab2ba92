import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponses } from '../../http/error-responses.js'
import { pageFor } from '../../http/links.js'
import { commit } from '../../plugins/unit-of-work.js'
import { type FieldErrors, ValidationError } from '../../shared/errors.js'
import { PageOf, pageOffset } from '../../shared/pagination.js'
import { nowIso } from '../../shared/time.js'
import { deliveryResource, endpointResource } from './webhook.mapper.js'
import {
  CreatedEndpoint,
  DeliveriesQuery,
  Delivery,
  Endpoint,
  EndpointBody,
  EndpointList,
  EndpointParams,
  EndpointPatch,
  EventParams,
  PATCHABLE,
  PingAnswer,
  RedeliverAnswer,
  RotatedSecret,
} from './webhook-endpoint.schemas.js'
import {
  checkUrl,
  createEndpoint,
  deliveryPage,
  endpointsOf,
  patchEndpoint,
  pingEndpoint,
  redeliverEvent,
  removeEndpoint,
  rotateSecret,
  showEndpoint,
} from './webhook-endpoint.service.js'

const tags = ['Webhooks']

const DELIVERY = `Events are POSTed as Standard Webhooks 1.0 messages: \`webhook-id\` (the event id: de-duplicate by
it), \`webhook-timestamp\`, \`webhook-signature\` (\`v1,\` + base64 HMAC-SHA256 of \`{id}.{timestamp}.{body}\` keyed with
the secret's base64-decoded part after \`whsec_\`; two signatures for 24 h after a rotation); the body is the event
exactly as \`GET /events/{id}\` shows it. A 2xx within 10 s is success; anything else (redirects are not followed)
is retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h and 24 h later (±10 %), then the delivery is \`failed\`. A 410
disables the endpoint at once, and so do 3 days of only failures.`

export const webhookEndpointRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app
  const tz = config.timeZone

  app.post(
    '/webhook-endpoints',
    {
      schema: {
        tags,
        operationId: 'createWebhookEndpoint',
        summary: 'Register a webhook endpoint',
        description: `At most 10 endpoints a partner (the 11th → 422 under \`url\`). The answer holds the signing
\`secret\`, shown only here and by rotate-secret. An invalid or forbidden \`url\` → 422 \`errors.url\`; an unknown
event type → 422 under \`events.N\`. The endpoint receives the events created from its registration on (earlier
ones: \`GET /events\`, or \`POST /events/{id}/redeliver\`).
${DELIVERY}`,
        body: EndpointBody,
        response: { 201: CreatedEndpoint, ...errorResponses(400, 401, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      await checkUrl(request.body.url, config.env)
      return commit(reply.code(201), async (trx) => {
        const row = await createEndpoint(trx, request.partner.partnerId, request.body, nowIso(app.clock))
        return { ...endpointResource(row, tz), secret: row.secret }
      })
    },
  )

  app.get(
    '/webhook-endpoints',
    {
      schema: {
        tags,
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        description: 'The partner’s endpoints (at most 10), oldest first, without their secrets.',
        response: { 200: EndpointList, ...errorResponses(401) },
      },
    },
    async (request) =>
      (await endpointsOf(db, request.partner.partnerId)).map((row) => endpointResource(row, tz)),
  )

  app.get(
    '/webhook-endpoints/:id',
    {
      schema: {
        tags,
        operationId: 'getWebhookEndpoint',
        summary: 'Get a webhook endpoint',
        description: 'Another partner’s endpoint → 404. The secret is never shown here.',
        params: EndpointParams,
        response: { 200: Endpoint, ...errorResponses(401, 404) },
      },
    },
    async (request) =>
      endpointResource(await showEndpoint(db, request.partner.partnerId, request.params.id), tz),
  )

  app.patch(
    '/webhook-endpoints/:id',
    {
      schema: {
        tags,
        operationId: 'updateWebhookEndpoint',
        summary: 'Change a webhook endpoint',
        description: `Changes \`url\`, \`events\`, \`description\` or \`status\`; a field not among them → 422 under its
name. The \`url\` follows the creation rules.`,
        params: EndpointParams,
        body: EndpointPatch,
        response: { 200: Endpoint, ...errorResponses(400, 401, 404, 413, 415, 422) },
      },
      // Validation drops unknown fields; a PATCH refuses them instead, so a typo never passes unseen.
      preValidation: async (request) => {
        const body = request.body
        if (!body || typeof body !== 'object' || Array.isArray(body)) return
        const errors: FieldErrors = {}
        for (const key of Object.keys(body)) {
          if (!PATCHABLE.includes(key)) errors[key] = [`The ${key} field cannot be changed.`]
        }
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)
      },
    },
    async (request, reply) => {
      if (request.body.url !== undefined) await checkUrl(request.body.url, config.env)
      return commit(reply, async (trx) =>
        endpointResource(
          await patchEndpoint(
            trx,
            request.partner.partnerId,
            request.params.id,
            request.body,
            nowIso(app.clock),
          ),
          tz,
        ),
      )
    },
  )

  app.delete(
    '/webhook-endpoints/:id',
    {
      schema: {
        tags,
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint',
        description: 'Deletes the endpoint and its deliveries (those pending are not attempted).',
        params: EndpointParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      return commit(reply.code(204), async (trx) => {
        await removeEndpoint(trx, request.partner.partnerId, request.params.id)
        return null
      })
    },
  )

  app.post(
    '/webhook-endpoints/:id/rotate-secret',
    {
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret',
        description:
          'A new secret, shown only in this answer. For 24 h the previous one signs too (two signatures), so that the receiver can switch without losing a delivery.',
        params: EndpointParams,
        response: { 200: RotatedSecret, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) =>
      commit(reply, async (trx) => ({
        secret: await rotateSecret(trx, request.partner.partnerId, request.params.id, nowIso(app.clock)),
      })),
  )

  app.post(
    '/webhook-endpoints/:id/ping',
    {
      schema: {
        tags,
        operationId: 'pingWebhookEndpoint',
        summary: 'Send a test event',
        description:
          'Writes a `ping` event (`data.object`: `{"endpoint_id": …}`) delivered to this endpoint alone, within seconds when it is enabled.',
        params: EndpointParams,
        response: { 202: PingAnswer, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      return commit(reply.code(202), async (trx) => ({
        event_id: await pingEndpoint(trx, request.partner.partnerId, request.params.id, nowIso(app.clock)),
      }))
    },
  )

  app.get(
    '/webhook-endpoints/:id/deliveries',
    {
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'List an endpoint’s deliveries',
        description: 'Newest first, paginated; kept 30 days like the events.',
        params: EndpointParams,
        querystring: DeliveriesQuery,
        response: { 200: PageOf(Delivery), ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const page = { page: request.query.page, perPage: request.query.per_page }
      const { partnerId } = request.partner
      const { rows, total } = await deliveryPage(
        db,
        partnerId,
        request.params.id,
        pageOffset(page),
        page.perPage,
      )
      return pageFor(
        request,
        rows.map((row) => deliveryResource(row, tz)),
        total,
        page,
      )
    },
  )
}

/** `POST /events/{id}/redeliver`, in a scope of its own: app.ts puts its hourly limit per event there. */
export const eventRedeliveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/events/:id/redeliver',
    {
      schema: {
        tags,
        operationId: 'redeliverEvent',
        summary: 'Deliver an event again',
        description:
          'Schedules the event again to every enabled endpoint subscribed to its type (a `ping` to its endpoint), with the same `webhook-id`; also to one registered after the event, which its first dispatch skipped. At most 10 times an hour for one event (then 429 `rate_limited` with `Retry-After`). Another partner’s or an unknown event → 404.',
        params: EventParams,
        response: { 202: RedeliverAnswer, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      return commit(reply.code(202), async (trx) => ({
        event_id: request.params.id,
        deliveries: await redeliverEvent(
          trx,
          request.partner.partnerId,
          request.params.id,
          nowIso(app.clock),
        ),
      }))
    },
  )
}
