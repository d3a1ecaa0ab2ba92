import { Type } from 'typebox'
import { DENIAL_REASONS, DOCUMENT_KINDS } from '../claims/claim.rules.js'

// The bodies of an adjuster's decisions on a claim (the console's claim page, and the CLI's).

export const ApproveBody = Type.Object(
  {
    settlement_method: Type.String({ description: '`repair`, `replacement` or `indemnity`.' }),
    approved_amount_cents: Type.Integer({
      minimum: 1,
      description: 'In cents; > 0 and ≤ the contract’s LMI.',
    }),
  },
  { examples: [{ settlement_method: 'repair', approved_amount_cents: 350_000 }] },
)
export const DenyBody = Type.Object(
  {
    reason_code: Type.String({ description: DENIAL_REASONS.map((r) => `\`${r}\``).join(', ') }),
    note: Type.String({ description: 'The note the partner sees (1–2,000 characters).' }),
  },
  { examples: [{ reason_code: 'not_covered', note: 'Dano causado por uso indevido, fora da cobertura.' }] },
)
export const SettleBody = Type.Object(
  { reference: Type.String({ description: 'The repair order or transfer id (≤ 100 characters).' }) },
  { examples: [{ reference: 'OS-2026-4411' }] },
)

export const RequestDocumentsBody = Type.Object(
  {
    kinds: Type.Array(Type.String(), {
      maxItems: 7,
      description: `The document kinds asked for, at least one: ${DOCUMENT_KINDS.map((k) => `\`${k}\``).join(', ')}.`,
    }),
    message: Type.String({
      maxLength: 2000,
      description: 'What is asked of the insured, 10 to 500 characters; the partner sees it.',
    }),
  },
  { examples: [{ kinds: ['invoice'], message: 'A nota fiscal enviada está ilegível; envie outra cópia.' }] },
)
