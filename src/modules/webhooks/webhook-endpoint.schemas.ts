import { type Static, Type } from 'typebox'
import { Id, named, nullable, Timestamp } from '../../http/http-schemas.js'
import { PageQuery } from '../../shared/pagination.js'
import { EVENT_TYPES } from '../events/event.service.js'
import { MAX_URL_LENGTH } from './webhook-url.js'

/** What an endpoint may subscribe to: every type but `ping` (always sent to its own endpoint), or `*`. */
export const SUBSCRIBABLE = ['*', ...EVENT_TYPES.filter((type) => type !== 'ping')] as const

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: `Absolute address events are POSTed to, at most ${MAX_URL_LENGTH} characters, without credentials. In production \`https\` only, and its host must resolve to public addresses (no loopback, private, link-local, shared, unique-local, multicast or unspecified ones); the test environment also allows \`http\` and loopback. Redirects are not followed.`,
})
const Events = Type.Array(Type.Enum([...SUBSCRIBABLE]), {
  minItems: 1,
  maxItems: SUBSCRIBABLE.length,
  description:
    'Event types sent to this endpoint, or `["*"]` for all of them. `ping` always reaches the endpoint it was sent to.',
})
const Description = nullable(
  Type.String({ maxLength: 255 }),
  'Your note about the endpoint, at most 255 characters.',
)

export const EndpointBody = Type.Object(
  {
    url: Url,
    events: Type.Optional(Events),
    description: Type.Optional(Description),
  },
  {
    description: 'Any other field is ignored.',
    examples: [{ url: 'https://partner.example.com/amparo/webhooks', events: ['subscription.canceled'] }],
  },
)
export type EndpointBody = Static<typeof EndpointBody>

export const EndpointPatch = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    status: Type.Optional(
      Type.Enum(['enabled', 'disabled'], {
        description:
          '`enabled` starts delivering again (also after the service disabled it); `disabled` pauses.',
      }),
    ),
  },
  { description: 'Only the fields sent change. Any other field → 422 under its name.' },
)
export type EndpointPatch = Static<typeof EndpointPatch>
export const PATCHABLE = Object.keys(EndpointPatch.properties)

const ENDPOINT_EXAMPLE = {
  id: 3,
  url: 'https://partner.example.com/amparo/webhooks',
  events: ['*'],
  description: null,
  status: 'enabled',
  created_at: '2026-11-21 09:00:00',
}

const EndpointSchema = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Type.Union([Type.String(), Type.Null()]),
    status: Type.Enum(['enabled', 'disabled'], {
      description: '`disabled` by you, or by the service after a 410 answer or 3 days of failed deliveries.',
    }),
    created_at: Timestamp('When it was registered.'),
  },
  {
    examples: [ENDPOINT_EXAMPLE],
  },
)

export const Endpoint = named('WebhookEndpoint', EndpointSchema)

const Secret = Type.String({
  pattern: '^whsec_[A-Za-z0-9+/=]{32,}$',
  description:
    '`whsec_` and the base64 of 32 random bytes: the key of the `webhook-signature` HMAC. Shown only in this answer: store it.',
})

const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8LIT0WsXfbU='

export const EndpointList = Type.Array(Endpoint, { examples: [[ENDPOINT_EXAMPLE]] })
export const CreatedEndpoint = named(
  'CreatedWebhookEndpoint',
  Type.Object(
    { ...EndpointSchema.properties, secret: Secret },
    { examples: [{ ...ENDPOINT_EXAMPLE, secret: SECRET_EXAMPLE }] },
  ),
)
export const RotatedSecret = Type.Object({ secret: Secret }, { examples: [{ secret: SECRET_EXAMPLE }] })
export const PingAnswer = Type.Object(
  {
    event_id: Type.String({
      description: 'The `ping` event written; its delivery appears in the deliveries.',
    }),
  },
  { examples: [{ event_id: 'evt_6f1c2a9e0b7d4c3f8a5e1d2c3b4a5f60' }] },
)
export const RedeliverAnswer = Type.Object(
  {
    event_id: Type.String(),
    deliveries: Type.Integer({
      description: 'Deliveries scheduled: one per enabled endpoint subscribed to its type.',
    }),
  },
  { examples: [{ event_id: 'evt_6f1c2a9e0b7d4c3f8a5e1d2c3b4a5f60', deliveries: 1 }] },
)

export const Delivery = named(
  'WebhookDelivery',
  Type.Object(
    {
      id: Type.Integer(),
      event_id: Type.String(),
      event_type: Type.String(),
      status: Type.Enum(['pending', 'succeeded', 'failed']),
      attempts: Type.Integer({ description: 'Attempts made so far.' }),
      last_status_code: Type.Union([Type.Integer(), Type.Null()], {
        description: 'HTTP status of the last answer; null when none came.',
      }),
      last_error: Type.Union([Type.String(), Type.Null()], {
        description: 'Why the last attempt failed (timeout, refused address, status…); null after a success.',
      }),
      next_attempt_at: Type.Union([Timestamp('When the next attempt is due.'), Type.Null()]),
      delivered_at: Type.Union([Timestamp('When a 2xx answer arrived.'), Type.Null()]),
      created_at: Timestamp('When the delivery was scheduled.'),
    },
    {
      examples: [
        {
          id: 41,
          event_id: 'evt_6f1c2a9e0b7d4c3f8a5e1d2c3b4a5f60',
          event_type: 'installment.payment_failed',
          status: 'pending',
          attempts: 1,
          last_status_code: 503,
          last_error: 'HTTP 503',
          next_attempt_at: '2026-12-21 00:05:05',
          delivered_at: null,
          created_at: '2026-12-21 00:05:00',
        },
      ],
    },
  ),
)

export const EndpointParams = Type.Object({ id: Id('Webhook endpoint id.', 1) })
export const EventParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'The event id.' }) })
export const DeliveriesQuery = PageQuery
