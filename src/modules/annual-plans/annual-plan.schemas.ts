import { type Static, Type } from 'typebox'
import { contractingFields, customerReference, gatewayExamples } from '../../http/contracting-fields.js'
import { Id, Money, named, nullable, PaidWithSchema, Timestamp } from '../../http/http-schemas.js'
import { PageQuery } from '../../shared/pagination.js'
import { Model } from '../catalog/catalog.schemas.js'
import { ContractCertificate } from '../certificates/certificate.schemas.js'
import { CUSTOMER_EXAMPLE, Customer } from '../customers/customer.schemas.js'

const imei = (description: string) =>
  Type.String({
    format: 'imei',
    maxLength: 32,
    description: `${description} 15 digits, valid Luhn check digit.`,
  })

export const PaymentMethod = Type.Enum(['credit_card', 'slip', 'pix'], {
  description: '`credit_card`, `slip` (boleto) or `pix`.',
})

const SALE = {
  model_id: 2,
  customer_document: '529.982.247-25',
  imei: '490154203237518',
  is_used: false,
  store_id: 3,
  maxima: 8999,
}

export const AnnualPlanBody = Type.Object(
  {
    ...contractingFields,
    plan_id: Type.Optional(
      Id(
        'Annual plan of this partner: the `plan.id` of `GET /annual-plans/quote`. Default: the partner’s default annual plan (the one the quote names without `plan_id`).',
      ),
    ),
    imei: imei('IMEI of the insured device.'),
    imei_2: Type.Optional(
      nullable(
        Type.String({ format: 'imei', maxLength: 32 }),
        'Second IMEI of a dual-SIM device, 15 digits with a valid Luhn check digit; must differ from `imei`.',
      ),
    ),
    payment: Type.Optional(
      Type.Object(
        {
          method: PaymentMethod,
          installments: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 12,
              description:
                'Card installments, 1 to 12; required for `credit_card`. Slip and pix are one payment.',
            }),
          ),
        },
        {
          description:
            'How the customer pays the partner. Required for external-gateway partners; ignored for own-gateway ones (they pay with `POST /annual-plans/{id}/payment`).',
        },
      ),
    ),
  },
  {
    ...customerReference,
    // The own-gateway partner pays with `POST /annual-plans/{id}/payment`: it sends no `payment`.
    ...gatewayExamples({ ...SALE, payment: { method: 'credit_card', installments: 10 } }, SALE),
  },
)
export type AnnualPlanBody = Static<typeof AnnualPlanBody>

export const AnnualPlanStatus = Type.Enum(['awaiting_payment', 'paid', 'protected', 'expired', 'canceled'], {
  description:
    'From the clock at the time of the call: `awaiting_payment` until paid; `paid` from payment until 00:00 ' +
    '(service zone) of the next day; `protected` during the 12 months of cover; `expired` from `ends_at`; ' +
    '`canceled` once a cancellation is confirmed.',
})

const Card = Type.Object(
  {
    brand: Type.String({ description: '`visa`, `mastercard`, `amex`, `elo`, `hipercard` or `other`.' }),
    last4: Type.String(),
  },
  { description: 'The card that paid (own gateway); the number and code are never kept.' },
)

const Payment = Type.Object(
  {
    method: PaymentMethod,
    installments: Type.Integer({ description: 'Card installments (1 for slip and pix).' }),
    card: Type.Optional(Card),
  },
  {
    description:
      'External gateway: what the partner declared at contracting. Own gateway: null until the card payment, then the card used.',
  },
)

export const CancellationStatus = Type.Enum(['requested', 'confirmed'])

export const RefundStatus = Type.Enum(['none', 'pending', 'succeeded', 'failed', 'partner'])

export const Cancellation = Type.Object(
  {
    protocol: Type.String({ description: 'Confirm with `POST /annual-plans/{id}/cancellation/{protocol}`.' }),
    status: CancellationStatus,
    reason: Type.Union([Type.String(), Type.Null()], { description: 'The reason given, or null.' }),
    requested_at: Timestamp('When it was requested.'),
    confirmed_at: Type.Union([Type.String(), Type.Null()], {
      description:
        'When it was confirmed, `YYYY-MM-DD HH:MM:SS` in the service time zone; null while requested.',
    }),
    refund_amount: Money('While requested, the refund if confirmed today; fixed at confirmation.'),
    refund_due_date: Type.Union([Type.String(), Type.Null()], {
      description: 'Confirmation date + 15 calendar days, `YYYY-MM-DD`; null while requested.',
    }),
    refund_status: Type.Union([RefundStatus, Type.Null()], {
      description: `Whether the refund was paid; null while requested. \`none\`: the refund is 0.
\`pending\`: the plan was paid through the own gateway and Amparo pays the refund back to the card
(within minutes; errors are retried for up to 3 days). \`succeeded\`: paid back (\`refunded_at\`).
\`failed\`: the gateway kept refusing; the operator is on it. \`partner\`: the plan was paid to the
partner (external gateway), who refunds its customer; Amparo only reports the amount and due date.`,
    }),
    refunded_at: Type.Union([Type.String(), Type.Null()], {
      description:
        'When the gateway took the refund, `YYYY-MM-DD HH:MM:SS` in the service time zone; null until then.',
    }),
  },
  { description: 'The cancellation of the plan; null when none was requested.' },
)

const nullableTimestamp = (description: string) =>
  Type.Union([Type.String(), Type.Null()], {
    description: `${description} \`YYYY-MM-DD HH:MM:SS\` in the service time zone; null while unpaid.`,
  })

const link = (path: string) => ({ link: `https://api.amparo.example${path}` })

export const AnnualPlan = named(
  'AnnualPlan',
  Type.Object(
    {
      id: Type.Integer({ description: 'Names the plan in the payment and cancellation calls.' }),
      status: AnnualPlanStatus,
      lmi: Money('Maximum indemnity limit applied.'),
      premium: Money('Single payment for the 12 months: the annual quotation for the same inputs.'),
      franchise: Money(
        'Franchise (deductible) taken from an approved claim: the plan’s franchise rate × LMI, fixed at contracting (0 when the plan has none).',
      ),
      policy_number: Type.Union([Type.String(), Type.Null()], {
        description: '`AMP-<year of payment>-<id, 6 digits>`; null until paid.',
      }),
      certificate: ContractCertificate,
      plan: Type.Object(
        { id: Type.Integer(), name: Type.String(), coverages: Type.Array(Type.String()) },
        { description: 'The annual plan contracted and what it covers.' },
      ),
      customer: { ...Customer, description: 'The insured customer (as `GET /customers/{document}`).' },
      model: { ...Model, description: 'The insured device model (as `GET /models/{id}`).' },
      imei: Type.String({ description: 'IMEI of the insured device, 15 bare digits.' }),
      imei_2: Type.Union([Type.String(), Type.Null()], { description: 'Second IMEI (dual-SIM), or null.' }),
      is_used: Type.Boolean({ description: 'Contracted as a used device (the used-device factor applied).' }),
      store_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The store that made the sale.' }),
      payment: Type.Union([Payment, Type.Null()], {
        description: 'How it is paid; null for an own-gateway plan not paid yet.',
      }),
      paid_at: nullableTimestamp('When the payment was confirmed.'),
      paid_with: PaidWithSchema,
      starts_at: nullableTimestamp('Start of cover: 00:00 of the day after payment.'),
      ends_at: nullableTimestamp('End of cover: 12 months after `starts_at`.'),
      cancellation: Type.Union([Cancellation, Type.Null()], {
        description: 'The cancellation; null when none was requested.',
      }),
      created_at: Timestamp('When it was contracted.'),
      updated_at: Timestamp(
        'When the plan last changed: payment, a coverage boundary (`starts_at`, `ends_at`), a cancellation request or its confirmation.',
      ),
    },
    {
      examples: [
        {
          id: 2001,
          status: 'protected',
          lmi: 8999,
          premium: 989.89,
          franchise: 0,
          policy_number: 'AMP-2026-002001',
          certificate: {
            url: 'https://api.amparo.example/annual-plans/2001/certificate',
            verification_code: 'K5QXGZLTMVZXI2LOM5RGC3DBNZSGKZLT',
            verification_url: 'https://api.amparo.example/certificates/K5QXGZLTMVZXI2LOM5RGC3DBNZSGKZLT',
          },
          plan: {
            id: 4,
            name: 'Proteção Anual',
            coverages: ['Roubo e furto qualificado', 'Quebra acidental'],
          },
          customer: CUSTOMER_EXAMPLE,
          model: {
            id: 2,
            name: 'iPhone 16 Pro',
            brand: { id: 1, name: 'Apple', meta: link('/brands/1') },
            meta: link('/models/2'),
          },
          imei: '490154203237518',
          imei_2: null,
          is_used: false,
          store_id: 3,
          payment: { method: 'credit_card', installments: 10, card: { brand: 'visa', last4: '1111' } },
          paid_at: '2026-11-21 10:20:00',
          paid_with: 'card',
          starts_at: '2026-11-22 00:00:00',
          ends_at: '2027-11-22 00:00:00',
          cancellation: null,
          created_at: '2026-11-21 10:15:00',
          updated_at: '2026-11-21 10:20:00',
        },
      ],
    },
  ),
)

export const AnnualPlanParams = Type.Object({ id: Id('Annual plan id, as returned when contracting.', 1) })

export const AnnualPlanListQuery = Type.Object({
  ...PageQuery.properties,
  'filter[status]': Type.Optional(
    Type.Enum(['awaiting_payment', 'paid', 'protected', 'expired', 'canceled'], {
      description: 'Only plans with this status now (by the clock, as `status` shows it).',
    }),
  ),
  'filter[customer_document]': Type.Optional(
    Type.String({
      format: 'cpf-or-cnpj',
      maxLength: 20,
      description: 'Only this customer’s (CPF or CNPJ, bare or formatted).',
    }),
  ),
})
export type AnnualPlanListQuery = Static<typeof AnnualPlanListQuery>
