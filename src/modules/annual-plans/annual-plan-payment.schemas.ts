import { type Static, Type } from 'typebox'

// Sizes are only bounds against abuse: the card rules (Luhn, month, digits) are checked after the
// schema so that each answers its own message under `card_number`, `card_expiry` or `card_cvv`.
export const AnnualPlanCardBody = Type.Object(
  {
    card_number: Type.String({
      maxLength: 32,
      description: 'Card number, 12–19 digits with a valid Luhn check digit; spaces and hyphens ignored.',
    }),
    card_holder: Type.Optional(Type.String({ maxLength: 100, description: 'Name printed on the card.' })),
    card_expiry: Type.String({
      maxLength: 5,
      description: 'Expiry month and year, `MM/YY` (`MMYY` also accepted); not before the current month.',
    }),
    card_cvv: Type.String({ maxLength: 4, description: 'Security code, 3 or 4 digits.' }),
    installments: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 12,
        default: 1,
        description: 'Card installments, 1 to 12. Default 1.',
      }),
    ),
  },
  {
    examples: [
      {
        card_number: '4111111111111111',
        card_holder: 'MARIA DA SILVA',
        card_expiry: '12/30',
        card_cvv: '123',
        installments: 10,
      },
    ],
  },
)
export type AnnualPlanCardBody = Static<typeof AnnualPlanCardBody>

export const PaymentNotice = Type.Object(
  {
    id: Type.Integer(),
    status: Type.Enum(['paid', 'protected', 'expired'], {
      description:
        '`paid` at notification (cover starts at 00:00 of the next day); a later repeat shows the clock’s status.',
    }),
    policy_number: Type.String({
      description: '`AMP-<year of payment>-<id, 6 digits>`; the same on every repeat.',
    }),
    paid_at: Type.String({ description: 'When the first notification was received, `YYYY-MM-DD HH:MM:SS`.' }),
    starts_at: Type.String({
      description: 'Start of cover, `YYYY-MM-DD HH:MM:SS` in the service time zone.',
    }),
    ends_at: Type.String({ description: 'End of cover, `YYYY-MM-DD HH:MM:SS` in the service time zone.' }),
  },
  {
    examples: [
      {
        id: 2001,
        status: 'paid',
        policy_number: 'AMP-2026-002001',
        paid_at: '2026-11-21 10:20:00',
        starts_at: '2026-11-22 00:00:00',
        ends_at: '2027-11-22 00:00:00',
      },
    ],
  },
)
