import { type Static, type TSchema, Type } from 'typebox'
import { DOCUMENTED_AS, exampleOf, named, Timestamp } from '../../http/http-schemas.js'
import { AnnualPlan } from '../annual-plans/annual-plan.schemas.js'
import { Claim } from '../claims/claim.schemas.js'
import { Dispute } from '../gateway-events/dispute.schemas.js'
import { Installment, Subscription } from '../subscriptions/subscription.schemas.js'
import { EVENT_TYPES, type EventType as EventTypeName } from './event.service.js'

const EventId = (description: string) => Type.String({ pattern: '^evt_[0-9a-f]{32}$', description })

export const EventType = Type.Enum([...EVENT_TYPES], {
  description: `What changed. \`data.object\` is a subscription (\`subscription.*\`), an installment with its
\`subscription_id\` (\`installment.*\`), an annual plan (\`annual_plan.*\`) or a payment's dispute (\`payment.*\`).`,
})

/** The types whose name starts with `prefix` (`subscription.`). */
const typesOf = (prefix: string) => EVENT_TYPES.filter((type) => type.startsWith(prefix))

/**
 * An event whose `data.object` is `object`, for the types listed: named in the OpenAPI document
 * (each webhook's payload, and one form of `Event`), so that a generated client narrows an event
 * by its `type`. Its example is of type `exampleType`, carrying the resource's own example.
 */
const eventOf = (
  name: string,
  types: readonly EventTypeName[],
  object: TSchema,
  exampleType: EventTypeName,
) =>
  named(
    name,
    Type.Object(
      {
        id: EventId('`evt_` and 32 hexadecimal digits: the delivery’s `webhook-id`.'),
        type: Type.Enum([...types]),
        created_at: Timestamp('When the change was written.'),
        data: Type.Object({ object }),
      },
      {
        description: `An event of type ${types.map((type) => `\`${type}\``).join(', ')}.`,
        examples: [
          {
            id: 'evt_6f1c2a9e0b7d4c3f8a5e1d2c3b4a5f60',
            type: exampleType,
            created_at: '2026-11-21 10:20:00',
            data: { object: exampleOf(object) },
          },
        ],
      },
    ),
  )

const PingObject = Type.Object(
  {
    endpoint_id: Type.Integer({
      description: 'The endpoint `POST /webhook-endpoints/{id}/ping` was called for.',
    }),
  },
  { examples: [{ endpoint_id: 1 }] },
)

/** Each group of event types with the resource it carries, as the OpenAPI document names them. */
export const EVENT_SCHEMAS = {
  SubscriptionEvent: eventOf(
    'SubscriptionEvent',
    typesOf('subscription.'),
    Subscription,
    'subscription.created',
  ),
  InstallmentEvent: eventOf('InstallmentEvent', typesOf('installment.'), Installment, 'installment.paid'),
  AnnualPlanEvent: eventOf('AnnualPlanEvent', typesOf('annual_plan.'), AnnualPlan, 'annual_plan.protected'),
  ClaimEvent: eventOf('ClaimEvent', typesOf('claim.'), Claim, 'claim.opened'),
  PaymentEvent: eventOf('PaymentEvent', typesOf('payment.'), Dispute, 'payment.disputed'),
  PingEvent: eventOf('PingEvent', ['ping'], PingObject, 'ping'),
}

const EVENT_EXAMPLE = {
  id: 'evt_6f1c2a9e0b7d4c3f8a5e1d2c3b4a5f60',
  type: 'installment.payment_failed',
  created_at: '2026-12-21 00:05:00',
  data: {
    object: {
      id: 5002,
      number: 2,
      amount: 54,
      due_date: '2026-12-21',
      status: 'pending',
      status_label: 'Pendente',
      paid_at: null,
      subscription_id: 1001,
      attempts: 1,
      last_decline_code: 'insufficient_funds',
      next_attempt_on: '2026-12-22',
    },
  },
}

/**
 * Any event, told apart by `type`. The document says which resource each type carries (the `anyOf`
 * of the groups above, so that generated clients narrow `data.object` by `type`); answers are
 * written with the open object below (DOCUMENTED_AS).
 */
export const Event = named(
  'Event',
  Type.Object(
    {
      id: EventId('`evt_` and 32 hexadecimal digits.'),
      type: EventType,
      created_at: Timestamp('When the change was written.'),
      data: Type.Object({
        object: Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              'The resource exactly as its GET showed it when the change was written (links under the service’s public address, `AMPARO_PUBLIC_URL`).',
          },
        ),
      }),
    },
    {
      [DOCUMENTED_AS]: {
        description: 'An event; its `type` says which resource `data.object` is.',
        anyOf: Object.keys(EVENT_SCHEMAS).map((name) => ({ $ref: `#/components/schemas/${name}` })),
        examples: [EVENT_EXAMPLE],
      },
      examples: [EVENT_EXAMPLE],
    },
  ),
)

export const EventList = Type.Object({
  data: Type.Array(Event, { description: 'Oldest first.' }),
  has_more: Type.Boolean({
    description: 'More events follow: ask again with `after` = the last id of `data`.',
  }),
})

export const EventListQuery = Type.Object({
  after: Type.Optional(
    EventId('The last event id you saw: only later events are answered. Absent: from the oldest kept.'),
  ),
  type: Type.Optional(EventType),
  limit: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 50,
    description: 'At most this many events (1–100).',
  }),
})
export type EventListQuery = Static<typeof EventListQuery>

export const EventParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'The event id.' }) })

/** The event group of each type: the payload its webhook documents. */
export function eventSchemaNameOf(type: EventTypeName): keyof typeof EVENT_SCHEMAS {
  if (type === 'ping') return 'PingEvent'
  if (type.startsWith('subscription.')) return 'SubscriptionEvent'
  if (type.startsWith('installment.')) return 'InstallmentEvent'
  if (type.startsWith('annual_plan.')) return 'AnnualPlanEvent'
  if (type.startsWith('payment.')) return 'PaymentEvent'
  return 'ClaimEvent'
}

/** What each event type means, for its webhook in the OpenAPI document. */
const MEANING: Record<EventTypeName, string> = {
  'subscription.created': 'A subscription was contracted; it is `pending` until installment 1 is paid.',
  'subscription.activated': 'Installment 1 was paid: the subscription is `pago`, the protection in force.',
  'subscription.canceled': 'The subscription was canceled; `cancellation.reason` says why.',
  'subscription.expired': 'The month of the subscription’s last installment has passed.',
  'installment.paid': 'An installment was paid: by card, by the recurrence, or notified by the partner.',
  'installment.payment_failed':
    'A charge of an installment was declined (`last_decline_code`); `next_attempt_on` says when it is tried again.',
  'annual_plan.created': 'An annual plan was contracted; it awaits its payment.',
  'annual_plan.paid': 'The annual plan’s single payment was received.',
  'annual_plan.protected': 'The annual plan’s protection started.',
  'annual_plan.expired': 'The annual plan’s 12 months have passed.',
  'annual_plan.cancellation_requested': 'The annual plan’s cancellation was requested.',
  'annual_plan.canceled': 'The annual plan was canceled.',
  'annual_plan.refund_updated':
    'The refund of a canceled annual plan changed (`cancellation.refund_status`).',
  'payment.disputed':
    'A charge through the own gateway was disputed (a chargeback), or its dispute closed: `status` is `disputed`, then `won` or `lost`; `evidence_due_by` says until when to answer it at Stripe.',
  'claim.opened': 'A claim was opened.',
  'claim.under_review': 'Every document of the claim was received: it is under review.',
  'claim.documents_requested':
    'The adjuster asked for more documents (`documents_request`): the claim awaits them (`documents_pending`).',
  'claim.approved': 'The claim was approved.',
  'claim.denied': 'The claim was denied.',
  'claim.settled': 'The claim was settled (replacement or indemnity).',
  'claim.withdrawn': 'The claim was withdrawn.',
  ping: 'A test event, sent by `POST /webhook-endpoints/{id}/ping` to that endpoint alone.',
}

/** The Standard Webhooks 1.0 headers of every delivery. */
const DELIVERY_HEADERS = [
  {
    name: 'webhook-id',
    description:
      'The event id (`evt_…`), the same on every attempt and redelivery: skip an id you have processed.',
    schema: { type: 'string', pattern: '^evt_[0-9a-f]{32}$' },
    example: 'evt_6f1c2a9e0b7d4c3f8a5e1d2c3b4a5f60',
  },
  {
    name: 'webhook-timestamp',
    description:
      'When this attempt was signed, in Unix seconds: refuse one more than 5 minutes from your clock.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1795260000',
  },
  {
    name: 'webhook-signature',
    description:
      '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of the endpoint’s secret after `whsec_`; for 24 h after a rotation two signatures (new and old), separated by a space. Accept when any one matches (the client’s `verifyWebhook` does all of this).',
    schema: { type: 'string' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
].map((header) => ({ ...header, in: 'header', required: true }))

/**
 * The OpenAPI 3.1 `webhooks` of the document: one per event type, the `POST` the service sends
 * to every enabled endpoint subscribed to it (README, Webhooks).
 */
export function eventWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${type.replace(/[._](\w)/g, (_, letter: string) => letter.toUpperCase())}Webhook`,
          summary: type,
          description: `${MEANING[type]} \`data.object\` is the resource as its GET showed it then. Answer 2xx within 10 s; anything else is retried (README, Webhooks).`,
          tags: ['Webhooks'],
          // Signed, not authenticated by a token: verify the signature.
          security: [],
          parameters: DELIVERY_HEADERS,
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaNameOf(type)}` } },
            },
          },
          responses: {
            '200': { description: 'Received. Any 2xx answered within 10 s acknowledges the delivery.' },
            '410': {
              description: 'Gone: the service disables the endpoint and delivers nothing more to it.',
            },
          },
        },
      },
    ]),
  )
}
