import { Type } from 'typebox'
import { nullable } from '../../http/http-schemas.js'
import { CLAIM_STATUSES, DOCUMENT_KINDS, FRAUD_SIGNALS } from '../claims/claim.rules.js'
import { Instant, NullableInstant, PartnerRef } from './console.schemas.js'

// A claim's fraud signals and what raised each (docs/decisions.md, Fraud evidence): operators only,
// across partners; the partner API shows neither.

export const FraudSignal = Type.Enum([...FRAUD_SIGNALS], {
  description:
    '`early_claim` (within 30 days of the cover starting), `repeat_device` (another claim on the device in 24 months, any partner), `repeat_customer` (2 or more other claims of the document in 12 months, any partner), `recent_card_change` (card changed within 7 days before the loss), `reused_document` (an uploaded file whose bytes were already on another customer’s claim, any partner).',
})

const EvidenceClaim = Type.Object({
  id: Type.Integer({ description: 'The other claim (its page: `#/sinistros/{id}`).' }),
  number: Type.String(),
  status: Type.Enum([...CLAIM_STATUSES]),
  status_label: Type.String(),
  partner: PartnerRef,
  contract: Type.Object({
    kind: Type.Enum(['subscription', 'annual_plan']),
    id: Type.Integer({ description: 'The id the partner’s API uses.' }),
    policy_number: nullable(Type.String(), 'The policy number; null before payment.'),
  }),
  customer_name: Type.String(),
  opened_at: Instant('When it was opened.'),
  document: nullable(
    Type.Object({
      id: Type.Integer({ description: 'The other claim’s document.' }),
      kind: Type.Enum([...DOCUMENT_KINDS]),
      filename: Type.String(),
      own_id: Type.Integer({ description: 'This claim’s document with the same bytes.' }),
      own_filename: Type.String(),
    }),
    '`reused_document`: the file with the same SHA-256 on that claim, and this claim’s copy; null otherwise.',
  ),
})

export const FraudEvidence = Type.Array(
  Type.Object({
    signal: FraudSignal,
    label: Type.String({ description: 'The signal in Portuguese.' }),
    claims: Type.Array(EvidenceClaim, {
      description:
        'The other claims the signal counted (`repeat_device`, `repeat_customer`, `reused_document`), latest first, at most 20.',
    }),
    card_changed_at: NullableInstant('`recent_card_change`: when the card was replaced.'),
    coverage_started_at: NullableInstant('`early_claim`: when the contract’s cover started.'),
  }),
  { description: 'What raised each of `fraud_signals`, in its order.' },
)
