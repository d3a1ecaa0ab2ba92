import { Type } from 'typebox'
import { Id } from '../../http/http-schemas.js'
import { MESSAGE_KINDS, MESSAGE_STATES } from '../messages/message.rules.js'
import { Instant, NullableInstant } from './console.schemas.js'

export const CustomerMessagesParams = Type.Object({ id: Id('The customer (under one partner).', 1) })

export const CustomerMessages = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        id: Type.Integer(),
        kind: Type.Enum([...MESSAGE_KINDS]),
        subject: Type.String(),
        to: Type.String({ description: 'The address it went to.' }),
        state: Type.Enum([...MESSAGE_STATES], {
          description:
            '`pending` (queued or waiting for a retry), `sent`, `kept` (no mail server), `failed`.',
        }),
        attempts: Type.Integer({ minimum: 0 }),
        last_error: Type.Union([Type.String(), Type.Null()], {
          description: "The mail server's last refusal.",
        }),
        created_at: Instant('Queued.'),
        sent_at: NullableInstant('Accepted by the mail server.'),
      }),
      { description: 'Newest first, at most 50.' },
    ),
  },
  {
    examples: [
      {
        data: [
          {
            id: 1,
            kind: 'contract_in_force',
            subject: 'Sua proteção está em vigor: Proteção Total 12x do iPhone 16 Pro',
            to: 'maria@example.com',
            state: 'sent',
            attempts: 1,
            last_error: null,
            created_at: '2026-11-21T13:20:00.000Z',
            sent_at: '2026-11-21T13:20:01.000Z',
          },
        ],
      },
    ],
  },
)
