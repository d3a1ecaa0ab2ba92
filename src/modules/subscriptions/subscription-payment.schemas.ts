import { type Static, Type } from 'typebox'
import { Id, named } from '../../http/http-schemas.js'

export const InstallmentParams = Type.Object({
  subscriptionId: Id('Subscription id, as returned when contracting.', 1),
  installmentId: Id('Installment `id` (not its `number`), from `GET /subscriptions/{id}/installments`.', 1),
})

// Sizes are only bounds against abuse: the card rules (Luhn, month, digits) are checked after the
// schema so that each answers its own message under `creditCard.number`, `.expiry` or `.cvv`.
export const CardPaymentBody = Type.Object(
  {
    creditCard: Type.Object(
      {
        number: Type.String({
          maxLength: 32,
          description: 'Card number, 12–19 digits with a valid Luhn check digit; spaces and hyphens ignored.',
        }),
        expiry: Type.String({
          maxLength: 5,
          description: 'Expiry month and year, `MMYY` (`MM/YY` also accepted); not before the current month.',
        }),
        cvv: Type.String({ maxLength: 4, description: 'Security code, 3 or 4 digits.' }),
        holder: Type.Optional(Type.String({ maxLength: 100, description: 'Name printed on the card.' })),
      },
      { description: 'The card; only the gateway’s token, the brand and the last four digits are kept.' },
    ),
  },
  {
    examples: [
      { creditCard: { number: '4111111111111111', expiry: '1230', cvv: '123', holder: 'MARIA DA SILVA' } },
    ],
  },
)
export type CardPaymentBody = Static<typeof CardPaymentBody>

export const NotifiedInstallment = named(
  'NotifiedInstallment',
  Type.Object(
    {
      id: Type.Integer(),
      number: Type.Integer({ description: '1-based position.' }),
      status: Type.Literal('paid'),
      status_label: Type.Literal('Pago'),
      paid_at: Type.String({
        description: 'When it was first paid, `YYYY-MM-DD HH:MM:SS` in the service time zone.',
      }),
    },
    {
      examples: [
        { id: 5001, number: 1, status: 'paid', status_label: 'Pago', paid_at: '2026-11-21 10:20:00' },
      ],
    },
  ),
)
