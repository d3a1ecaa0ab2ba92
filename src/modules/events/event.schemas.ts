import { type Static, Type } from 'typebox'
import { Timestamp } from '../../http/http-schemas.js'
import { EVENT_TYPES } from './event.service.js'

const EventId = (description: string) => Type.String({ pattern: '^evt_[0-9a-f]{32}$', description })

export const EventType = Type.Enum([...EVENT_TYPES], {
  description: `What changed. \`data.object\` is a subscription (\`subscription.*\`), an installment with its
\`subscription_id\` (\`installment.*\`) or an annual plan (\`annual_plan.*\`).`,
})

export const Event = Type.Object(
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
    examples: [
      {
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
      },
    ],
  },
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
