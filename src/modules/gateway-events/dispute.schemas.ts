import { Type } from 'typebox'
import { Timestamp } from '../../http/http-schemas.js'
import { DISPUTE_REASON_LABELS, DISPUTE_STATUS_LABELS } from '../../shared/labels.js'
import { DISPUTE_REASONS } from './dispute.rules.js'

export const DisputeStatus = Type.Enum(['disputed', 'won', 'lost'], {
  description: '`disputed` while the chargeback is open; `won` or `lost` once Stripe closes it.',
})

/** A chargeback on a payment: `data.object` of `payment.disputed`, and a row of the console's Disputas. */
export const Dispute = Type.Object(
  {
    id: Type.Integer({ description: 'Amparo’s id of the dispute.' }),
    gateway_dispute_id: Type.String({ description: 'Stripe’s dispute id (`dp_…`).' }),
    payment_id: Type.Integer({ description: 'The ledger row of the disputed charge.' }),
    contract: Type.Object(
      {
        kind: Type.Enum(['subscription', 'annual_plan']),
        id: Type.Integer({ description: 'The subscription’s or annual plan’s id, as the partner knows it.' }),
        policy_number: Type.Union([Type.String(), Type.Null()], { description: '`AMP-…`.' }),
      },
      { description: 'The contract the disputed charge paid.' },
    ),
    installment_id: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The installment the charge paid (subscriptions); null for an annual plan.',
    }),
    amount: Type.Integer({ description: 'Cents disputed.' }),
    reason: Type.Enum([...DISPUTE_REASONS], {
      description: 'Stripe’s reason (an unknown one reads `general`).',
    }),
    reason_label: Type.String({ description: `Portuguese label of \`reason\`.` }),
    status: DisputeStatus,
    status_label: Type.String({ description: 'Portuguese label of `status`.' }),
    evidence_due_by: Type.Union([Timestamp('Until when evidence may be sent to Stripe;'), Type.Null()]),
    created_at: Timestamp('When Amparo first heard of it.'),
    updated_at: Timestamp('Its last change.'),
  },
  {
    examples: [
      {
        id: 1,
        gateway_dispute_id: 'dp_1QxAmparo',
        payment_id: 42,
        contract: { kind: 'subscription', id: 1001, policy_number: 'AMP-2026-000123' },
        installment_id: 5001,
        amount: 5400,
        reason: 'fraudulent',
        reason_label: DISPUTE_REASON_LABELS.fraudulent,
        status: 'disputed',
        status_label: DISPUTE_STATUS_LABELS.disputed,
        evidence_due_by: '2026-12-01 20:59:59',
        created_at: '2026-11-21 12:00:00',
        updated_at: '2026-11-21 12:00:00',
      },
    ],
  },
)
