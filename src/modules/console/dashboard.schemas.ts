import { type Static, Type } from 'typebox'
import { nullable } from '../../http/http-schemas.js'
import { Cents } from './console.schemas.js'

const Month = Type.String({
  pattern: '^\\d{4}-(0[1-9]|1[0-2])$',
  description: 'A month of the service’s zone (`AMPARO_TIMEZONE`), `YYYY-MM`.',
})
const Ratio = nullable(
  Type.Number({ minimum: 0 }),
  'Claims paid ÷ premiums collected, 4 decimals (0.6235 = 62.35 %); null when nothing was collected.',
)

const OWED =
  'Payable amounts of the claims approved before the period’s end and not settled by then ("a pagar").'
const IncurredRatio = nullable(
  Type.Number({ minimum: 0 }),
  'Incurred loss ratio: (claims paid + a pagar) ÷ premiums collected, 4 decimals; null when nothing was collected.',
)

export const DashboardQuery = Type.Object({
  from: Type.Optional(
    Type.String({ description: 'First month, `YYYY-MM` (service zone); by default 11 months before `to`.' }),
  ),
  to: Type.Optional(
    Type.String({
      description: 'Last month, `YYYY-MM` (service zone); by default this month. At most 36 months in all.',
    }),
  ),
})
export type DashboardQuery = Static<typeof DashboardQuery>

const EXAMPLE = {
  period: { from: '2026-10', to: '2026-11' },
  premiums: [
    { month: '2026-10', written_cents: 1_438_800, collected_cents: 359_700 },
    { month: '2026-11', written_cents: 599_900, collected_cents: 419_600 },
  ],
  active_protections: { subscriptions: 12, annual_plans: 3 },
  claims: [
    { month: '2026-10', opened: 2, approved: 1, denied: 0, settled: 0 },
    { month: '2026-11', opened: 1, approved: 1, denied: 1, settled: 1 },
  ],
  loss_ratio: [
    {
      partner_id: 1,
      partner_name: 'Loja Exemplo',
      plan_id: 3,
      plan_name: 'Proteção Total 12x',
      premiums_collected_cents: 779_300,
      claims_paid_cents: 320_000,
      ratio: 0.4106,
      claims_owed_cents: 549_915,
      incurred_ratio: 1.1163,
    },
  ],
  open_claims: { owed: { count: 1, payable_cents: 549_915 }, overdue: 1, due_this_week: 2 },
  totals: {
    written_cents: 2_038_700,
    collected_cents: 779_300,
    claims_paid_cents: 320_000,
    ratio: 0.4106,
    claims_owed_cents: 549_915,
    incurred_ratio: 1.1163,
  },
}

export const Dashboard = Type.Object(
  {
    period: Type.Object({ from: Month, to: Month }),
    premiums: Type.Array(
      Type.Object({
        month: Month,
        written_cents: Cents(
          'Premiums contracted that month: a subscription’s installments in full, an annual plan’s premium.',
        ),
        collected_cents: Cents('Payments approved or recorded that month in the ledger, minus refunds paid.'),
      }),
      { description: 'Every month of the period, in order; zeros where nothing happened.' },
    ),
    active_protections: Type.Object(
      {
        subscriptions: Type.Integer({ description: 'Active (`pago`) subscriptions not yet ended.' }),
        annual_plans: Type.Integer({
          description: 'Annual plans paid or protected whose cover has not ended.',
        }),
      },
      { description: 'Protections in force now (not limited to the period).' },
    ),
    claims: Type.Array(
      Type.Object({
        month: Month,
        opened: Type.Integer(),
        approved: Type.Integer(),
        denied: Type.Integer(),
        settled: Type.Integer(),
      }),
      { description: 'Claims opened, approved, denied and settled each month of the period.' },
    ),
    open_claims: Type.Object(
      {
        owed: Type.Object(
          {
            count: Type.Integer({ minimum: 0 }),
            payable_cents: Cents('Their payable amounts.'),
          },
          { description: '"A pagar": claims approved and not yet settled.' },
        ),
        overdue: Type.Integer({
          minimum: 0,
          description: 'Claims under review or approved past their deadline.',
        }),
        due_this_week: Type.Integer({
          minimum: 0,
          description: 'Claims under review or approved whose deadline is today or in the six days after.',
        }),
      },
      { description: 'Open claims now (not limited to the period); docs/decisions.md, Claim deadline.' },
    ),
    loss_ratio: Type.Array(
      Type.Object({
        partner_id: Type.Integer(),
        partner_name: Type.String(),
        plan_id: nullable(Type.Integer(), 'The plan; null for ledger rows without a contract.'),
        plan_name: nullable(Type.String(), 'The plan’s name.'),
        premiums_collected_cents: Cents('Collected in the period.'),
        claims_paid_cents: Cents('Payable amounts of the claims settled in the period.'),
        ratio: Ratio,
        claims_owed_cents: Cents(OWED),
        incurred_ratio: IncurredRatio,
      }),
      { description: 'Per partner and plan with money in or out in the period, by partner then plan.' },
    ),
    totals: Type.Object({
      written_cents: Cents('Written in the period.'),
      collected_cents: Cents('Collected in the period.'),
      claims_paid_cents: Cents('Paid on claims settled in the period.'),
      ratio: Ratio,
      claims_owed_cents: Cents(OWED),
      incurred_ratio: IncurredRatio,
    }),
  },
  { examples: [EXAMPLE] },
)
