import { Type } from 'typebox'
import { nullable } from '../../http/http-schemas.js'
import { DISPUTE_REASONS } from '../gateway-events/dispute.rules.js'
import {
  Cents,
  ConsolePage,
  ConsolePageQuery,
  Instant,
  NullableInstant,
  PartnerRef,
} from './console.schemas.js'

export const DisputeQuery = Type.Object({
  ...ConsolePageQuery.properties,
  status: Type.Optional(
    Type.Enum(['disputed', 'won', 'lost'], {
      description: '`disputed` (open), `won` or `lost`. Absent: all.',
    }),
  ),
})

export const DisputePage = ConsolePage(
  Type.Object({
    id: Type.Integer(),
    gateway_dispute_id: Type.String({ description: 'Stripe’s `dp_…`.' }),
    partner: PartnerRef,
    payment: Type.Object(
      {
        id: Type.Integer({ description: 'The ledger row of the disputed charge.' }),
        installment_number: nullable(Type.Integer(), 'The installment it paid; null for an annual plan.'),
        gateway_payment_id: nullable(Type.String(), 'Stripe’s PaymentIntent (`pi_…`), to find it at Stripe.'),
        paid_at: Instant('When the charge was recorded.'),
      },
      { description: 'The disputed charge.' },
    ),
    contract: Type.Object({
      kind: Type.Enum(['subscription', 'annual_plan']),
      id: Type.Integer({ description: 'The subscription’s or annual plan’s id, as the partner knows it.' }),
      policy_number: nullable(Type.String(), '`AMP-…`; null before one was given.'),
    }),
    amount_cents: Cents('Amount disputed.'),
    reason: Type.Enum([...DISPUTE_REASONS]),
    status: Type.Enum(['disputed', 'won', 'lost']),
    evidence_due_by: NullableInstant('Until when evidence may be sent to Stripe.'),
    created_at: Instant('When Stripe reported it.'),
  }),
  {
    id: 1,
    gateway_dispute_id: 'dp_1QxAmparo',
    partner: { id: 2, name: 'Operadora Exemplo' },
    payment: {
      id: 42,
      installment_number: 1,
      gateway_payment_id: 'pi_3QxAmparo',
      paid_at: '2026-11-01T15:00:00.000Z',
    },
    contract: { kind: 'subscription', id: 1001, policy_number: 'AMP-2026-000123' },
    amount_cents: 5_400,
    reason: 'fraudulent',
    status: 'disputed',
    evidence_due_by: '2026-12-01T23:59:59.000Z',
    created_at: '2026-11-21T12:00:00.000Z',
  },
)
