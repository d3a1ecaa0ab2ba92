import { type Static, Type } from 'typebox'
import { DENIAL_REASONS, SETTLEMENT_METHODS } from '../claims/claim.rules.js'

export const DecisionBody = Type.Object(
  {
    outcome: Type.Enum(['approved', 'denied'], {
      description:
        '`approved` (from `under_review`) or `denied` (from `documents_pending` or `under_review`).',
    }),
    settlement_method: Type.Optional(
      Type.Enum([...SETTLEMENT_METHODS], {
        description:
          'Approval: `repair` keeps the contract in force; `replacement` and `indemnity` end it when settled.',
      }),
    ),
    approved_amount: Type.Optional(
      Type.Number({
        description:
          "Approval: in reais, at most two decimals, > 0 and ≤ the contract's LMI. `payable_amount` = approved − franchise, never below 0.",
      }),
    ),
    reason_code: Type.Optional(
      Type.Enum([...DENIAL_REASONS], { description: 'Denial: why the claim is denied.' }),
    ),
    note: Type.Optional(
      Type.String({ maxLength: 2000, description: 'Denial: the note the partner sees, 1–2,000 characters.' }),
    ),
  },
  {
    examples: [
      { outcome: 'approved', settlement_method: 'indemnity', approved_amount: 1200 },
      { outcome: 'denied', reason_code: 'documents_invalid', note: 'A nota fiscal enviada está ilegível.' },
    ],
  },
)
export type DecisionBody = Static<typeof DecisionBody>

export const SettleBody = Type.Object(
  {
    reference: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'The repair order or transfer id, at most 100 characters.',
      }),
    ),
  },
  { examples: [{ reference: 'PIX-E2E-20261121-0001' }] },
)
export type SettleBody = Static<typeof SettleBody>
