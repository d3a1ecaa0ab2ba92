import { Type } from 'typebox'
import { Id, nullable } from '../../http/http-schemas.js'
import { Cents, ConsolePage, ConsolePageQuery, Instant, PartnerRef } from './console.schemas.js'

export const RefundQuery = Type.Object({
  ...ConsolePageQuery.properties,
  status: Type.Optional(
    Type.Enum(['pending', 'failed'], {
      description: '`pending` (the worker pays it), `failed` (given up). Absent: both.',
    }),
  ),
})
export const RefundParams = Type.Object({ id: Id('Refund id.', 1) })

const ITEM_EXAMPLE = {
  id: 1,
  annual_plan_id: 3,
  policy_number: 'AMP-2026-000003',
  partner: { id: 2, name: 'Operadora Exemplo' },
  customer_name: 'Maria da Silva',
  amount_cents: 41_250,
  status: 'failed',
  attempts: 9,
  last_error: 'gateway_unavailable',
  next_attempt_at: '2026-11-24T10:00:00.000Z',
  give_up_at: '2026-11-24T10:00:00.000Z',
  created_at: '2026-11-21T10:00:00.000Z',
}

const Status = Type.Enum(['pending', 'succeeded', 'failed'])
const common = {
  id: Type.Integer(),
  annual_plan_id: Type.Integer(),
  amount_cents: Cents('Amount to refund.'),
  attempts: Type.Integer({ description: 'Gateway calls so far.' }),
  last_error: nullable(
    Type.String(),
    'The last attempt’s error code (`gateway_unavailable`, `gateway_refused`…).',
  ),
  next_attempt_at: Instant('When the worker tries next.'),
  give_up_at: Instant('An error after this makes it `failed`.'),
}

export const RefundPage = ConsolePage(
  Type.Object({
    ...common,
    policy_number: nullable(Type.String(), 'The plan’s policy number.'),
    partner: PartnerRef,
    customer_name: Type.String(),
    status: Status,
    created_at: Instant('Opened (at the cancellation’s confirmation).'),
  }),
  ITEM_EXAMPLE,
)

export const RetriedRefund = Type.Object(
  { ...common, status: Status },
  {
    examples: [
      {
        ...ITEM_EXAMPLE,
        status: 'pending',
        next_attempt_at: '2026-11-27T06:00:00.000Z',
        give_up_at: '2026-11-30T06:00:00.000Z',
      },
    ].map(({ policy_number: _p, partner: _partner, customer_name: _c, created_at: _at, ...rest }) => rest),
  },
)
