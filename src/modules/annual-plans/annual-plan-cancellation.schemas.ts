import { type Static, Type } from 'typebox'
import { Id, Money, nullable, Timestamp } from '../../http/http-schemas.js'

export const CancellationBody = Type.Object(
  {
    reason: Type.Optional(
      nullable(
        Type.String({ maxLength: 255 }),
        'Why the customer cancels, at most 255 characters; kept with the request.',
      ),
    ),
  },
  { examples: [{ reason: 'Cliente desistiu da proteção.' }] },
)
export type CancellationBody = Static<typeof CancellationBody>

export const CancellationRequest = Type.Object(
  {
    protocol: Type.String({
      description:
        '`CAN-` and 10 characters (A–Z, 2–7). Confirm with `POST /annual-plans/{id}/cancellation/{protocol}`.',
    }),
    status: Type.Literal('requested'),
    reason: Type.Union([Type.String(), Type.Null()], {
      description: 'The reason of the first request, or null.',
    }),
    refund_amount: Money('The refund if the cancellation were confirmed now; fixed at confirmation.'),
    requested_at: Timestamp('When it was first requested.'),
  },
  {
    examples: [
      {
        protocol: 'CAN-K7Q2M4XJ3D',
        status: 'requested',
        reason: 'Cliente desistiu da proteção.',
        refund_amount: 989.89,
        requested_at: '2026-11-23 14:00:00',
      },
    ],
  },
)

export const CancellationParams = Type.Object({
  id: Id('Annual plan id.'),
  protocol: Type.String({
    maxLength: 50,
    description: 'The protocol `PUT /annual-plans/{id}/cancellation` returned.',
  }),
})
