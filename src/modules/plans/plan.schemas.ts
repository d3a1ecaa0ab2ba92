import { type Static, Type } from 'typebox'
import { COVERAGE_TYPES } from '../../db/tables/plan.js'
import { Id, Money, named } from '../../http/http-schemas.js'

const COVERAGES = ['Roubo e furto qualificado', 'Quebra acidental', 'Danos por líquidos']

export const Plan = named(
  'Plan',
  Type.Object(
    {
      id: Type.Integer({ description: 'The `plan_id` of `POST /subscriptions`.' }),
      name: Type.String(),
      installments: Type.Integer({ description: 'Number of monthly installments of a subscription.' }),
      coverages: Type.Array(Type.String(), { description: 'What the plan covers, in Portuguese.' }),
      coverage_types: Type.Array(Type.Enum([...COVERAGE_TYPES]), {
        description:
          'The perils a claim may name: `robbery` (Roubo), `qualified_theft` (Furto qualificado), `accidental_damage` (Quebra acidental), `liquid_damage` (Danos por líquido).',
      }),
      claim_notice_days: Type.Integer({
        description: 'A claim must be opened within this many days of the loss.',
      }),
      max_claims_per_year: Type.Integer({
        description: 'At most this many claims of one contract approved in the 365 days before a loss.',
      }),
    },
    { description: 'A subscription plan of the partner.' },
  ),
)

export const PlanList = Type.Array(Plan, {
  examples: [
    [
      {
        id: 1,
        name: 'Proteção Essencial 12x',
        installments: 12,
        coverages: COVERAGES.slice(0, 2),
        coverage_types: ['robbery', 'qualified_theft', 'accidental_damage'],
        claim_notice_days: 30,
        max_claims_per_year: 2,
      },
      {
        id: 2,
        name: 'Proteção Total 12x',
        installments: 12,
        coverages: COVERAGES,
        coverage_types: [...COVERAGE_TYPES],
        claim_notice_days: 30,
        max_claims_per_year: 2,
      },
    ],
  ],
})

const quotationExample = {
  id: 2,
  name: 'Proteção Total 12x',
  monthly_premium: 107.99,
  lmi: 8999,
  installments: 12,
}

export const PlanQuotation = named(
  'PlanQuotation',
  Type.Object(
    {
      id: Type.Integer({ description: 'Plan id.' }),
      name: Type.String({ description: 'Plan name.' }),
      monthly_premium: Money('Each monthly installment: LMI × the plan’s monthly rate, half-up to the cent.'),
      lmi: Money('The LMI applied: `maxima` when inside the authorized range, else the model default.'),
      installments: Type.Integer({ description: 'Number of monthly installments.' }),
    },
    { examples: [quotationExample] },
  ),
)

export const Quotation = named(
  'Quotation',
  Type.Object(
    {
      plans: Type.Array(PlanQuotation, {
        description: 'Every active subscription plan of the partner, by id.',
      }),
    },
    {
      examples: [
        {
          plans: [
            { id: 1, name: 'Proteção Essencial 12x', monthly_premium: 80.99, lmi: 8999, installments: 12 },
            quotationExample,
          ],
        },
      ],
    },
  ),
)

export const AnnualQuote = named(
  'AnnualQuote',
  Type.Object(
    {
      model: Type.Object(
        { id: Type.Integer(), name: Type.String() },
        { description: 'The quoted device model.' },
      ),
      plan: Type.Object(
        { id: Type.Integer(), name: Type.String(), coverages: Type.Array(Type.String()) },
        {
          description:
            'Extension: the annual plan quoted (the default one unless `plan_id` was sent); its `id` is the `plan_id` of `POST /annual-plans`.',
        },
      ),
      premium: Money(
        'Single payment for 12 months: LMI × the annual rate (× the used-device factor when `used`), half-up to the cent.',
      ),
      lmi: Money('The LMI applied: `maxima` when inside the authorized range, else the model default.'),
    },
    {
      examples: [
        {
          model: { id: 7, name: 'iPhone 16 Pro' },
          plan: {
            id: 4,
            name: 'Proteção Anual',
            coverages: ['Roubo e furto qualificado', 'Quebra acidental'],
          },
          premium: 989.89,
          lmi: 8999,
        },
      ],
    },
  ),
)

const quoteFields = {
  model_id: {
    ...Id(
      'Device model, from `GET /models`. Required. Unknown, inactive or not available to this partner → 422 `errors.model_id`.',
    ),
    // The demo's iPhone 16 Pro: active, attributed to both demo partners.
    examples: [2],
  },
  maxima: Type.Optional(
    Type.Number({
      description:
        'Desired LMI in reais, at most two decimals (`4500`, `4499.5`, `4.5e3`). Inside the authorized range it is the LMI; ' +
        'absent, empty, zero, negative, below or above the range → the model’s default LMI, without error. ' +
        'More than two decimals (`1.005`) or not a number (`abc`) → 422 `errors.maxima`.',
      examples: [4500],
    }),
  ),
}

export const QuotationQuery = Type.Object(quoteFields)
export type QuotationQuery = Static<typeof QuotationQuery>

const usedFlag = (description: string) =>
  Type.Optional(
    Type.Boolean({ description: `${description} \`true\`/\`false\`, also \`1\`/\`0\`.`, examples: [true] }),
  )

export const AnnualQuoteQuery = Type.Object({
  ...quoteFields,
  used: usedFlag(
    'The device has more than 3 months of use: applies the plan’s used-device factor. Default false.',
  ),
  is_used: usedFlag(
    'Alias of `used` (the name of the contracting bodies). Both sent with different values → 422 under `used`.',
  ),
  plan_id: Type.Optional({
    ...Id(
      'Annual plan to quote (the `plan_id` of `POST /annual-plans`). Default: the partner’s default annual plan. ' +
        'Not an active annual plan of this partner → 422 `errors.plan_id`.',
    ),
    examples: [4],
  }),
})
export type AnnualQuoteQuery = Static<typeof AnnualQuoteQuery>

export const PlanParams = Type.Object({ planId: Id('Subscription plan id, from `GET /plans`.', 2) })
