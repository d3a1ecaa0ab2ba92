import { type Static, Type } from 'typebox'
import { CANCELLATION_REASONS } from '../../db/tables/subscription.js'
import { contractingFields, customerReference, gatewayExamples } from '../../http/contracting-fields.js'
import { Id, MetaLink, Money, named, nullable, PaidWithSchema, Timestamp } from '../../http/http-schemas.js'
import { PageQuery } from '../../shared/pagination.js'
import { BrandRef, Model } from '../catalog/catalog.schemas.js'
import { ContractCertificate } from '../certificates/certificate.schemas.js'
import { CUSTOMER_EXAMPLE, Customer } from '../customers/customer.schemas.js'

const serial = (description: string) =>
  Type.Optional(nullable(Type.String({ maxLength: 50 }), `${description} At most 50 characters.`))

const SALE = {
  customer_document: '529.982.247-25',
  model_id: 2,
  serial_number: '490154203237518',
  is_used: false,
  store_id: 3,
  maxima: 4500,
  metadata: { origin: 'pdv-loja-centro' },
}

export const SubscriptionBody = Type.Object(
  {
    ...contractingFields,
    plan_id: Id('Subscription plan, from `GET /plans`. Must be one of this partner’s active plans.'),
    serial_number: serial(
      'IMEI or serial number; may be informed later (`PATCH /subscriptions/{id}`). Must differ from `second_serial_number`, and must not have an active protection anywhere in the service.',
    ),
    second_serial_number: serial(
      'Second IMEI of a dual-SIM device. Must differ from `serial_number`, and must not have an active protection anywhere in the service.',
    ),
    metadata: Type.Optional(
      Type.Object(
        {
          origin: Type.Optional(
            nullable(
              Type.String({ maxLength: 100 }),
              'Where the sale came from (your own identifier), at most 100 characters.',
            ),
          ),
        },
        { description: 'Free data of the partner about the sale.' },
      ),
    ),
  },
  {
    ...customerReference,
    // Proteção Total 12x of each demo partner: plan 2 of the external one, plan 6 of the own one.
    ...gatewayExamples({ plan_id: 2, ...SALE }, { plan_id: 6, ...SALE }),
  },
)
export type SubscriptionBody = Static<typeof SubscriptionBody>

export const SerialsBody = Type.Object(
  {
    serial_number: serial(
      'IMEI or serial number. Sets it when not set yet; once set it cannot be changed (sending the same device again changes nothing).',
    ),
    second_serial_number: serial(
      'Second IMEI of a dual-SIM device. Sets it when not set yet; once set it cannot be changed.',
    ),
  },
  { examples: [{ serial_number: '490154203237518' }] },
)
export type SerialsBody = Static<typeof SerialsBody>

export const SubscriptionStatus = Type.Enum(['pending', 'pago', 'canceled', 'expired'], {
  description:
    '`pending` until installment 1 is paid, then `pago`; `canceled` when canceled or unpaid; `expired` once the month of its last installment has passed (installment k covers the month from its due date to the next one’s).',
})

const CancellationReason = Type.Enum([...CANCELLATION_REASONS], {
  description:
    '`partner_request` (`POST /subscriptions/{id}/cancellation`), `first_installment_unpaid` (installment 1 unpaid 30 days after contracting), `recurrence_failed` (an installment still declined after its last retry), `claim_settled` (a claim settled by replacement or indemnity ended it), `insured_withdrawal` (the insured withdrew within 7 days of contracting, on their own page: the consumer’s right of withdrawal).',
})

const link = (path: string) => ({ link: `https://api.amparo.example${path}` })

export const Subscription = named(
  'Subscription',
  Type.Object(
    {
      id: Type.Integer(),
      status: SubscriptionStatus,
      status_label: Type.Enum(['Pendente', 'Pago', 'Cancelado', 'Expirado'], {
        description: 'The status in pt-BR.',
      }),
      plan: Type.Object({ id: Type.Integer(), name: Type.String(), coverages: Type.Array(Type.String()) }),
      customer: Customer,
      device: Type.Object(
        {
          id: Type.Integer({ description: 'The model id.' }),
          name: Type.String(),
          brand: BrandRef,
          meta: MetaLink,
          serial_number: Type.Union([Type.String(), Type.Null()]),
          second_serial_number: Type.Union([Type.String(), Type.Null()]),
          is_used: Type.Boolean(),
        },
        { description: 'The insured device: its model, serials and whether it was used.' },
      ),
      model: Model,
      valor: Money('Monthly value (the premium of each installment).'),
      franchise: Money('Deductible of a claim.'),
      lmi: Money('Maximum indemnity limit applied.'),
      installments_count: Type.Integer({ description: 'Total installments of the plan.' }),
      policy_number: Type.Union([Type.String(), Type.Null()], {
        description:
          '`AMP-<year>-<number, 6 digits>`, from the same sequence as the annual plans’ policy numbers; given when the subscription becomes `pago` (null before). On its certificate (`GET /subscriptions/{id}/certificate`).',
      }),
      certificate: ContractCertificate,
      store_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The store that made the sale.' }),
      metadata: Type.Object({ origin: Type.Union([Type.String(), Type.Null()]) }),
      card: Type.Union(
        [
          Type.Object({
            brand: Type.String({
              description: '`visa`, `mastercard`, `amex`, `elo`, `hipercard` or `other`.',
            }),
            last4: Type.String({ pattern: '^[0-9]{4}$' }),
          }),
          Type.Null(),
        ],
        {
          description:
            'Own gateway: the card the recurrence charges (set by the payment, replaced by `PUT /subscriptions/{id}/card`); null when none.',
        },
      ),
      cancellation: Type.Union(
        [
          Type.Object({
            reason: CancellationReason,
            canceled_at: Timestamp('When it was canceled.'),
            comment: Type.Union([Type.String(), Type.Null()], {
              description:
                'The partner’s own words (`reason` of `POST /subscriptions/{id}/cancellation`); null otherwise.',
            }),
          }),
          Type.Null(),
        ],
        { description: 'Why and when it was canceled; null while it is not.' },
      ),
      created_at: Timestamp('When it was contracted.'),
      updated_at: Timestamp('When the subscription last changed (status, card, serials, cancellation).'),
    },
    {
      examples: [
        {
          id: 1001,
          status: 'pending',
          status_label: 'Pendente',
          plan: {
            id: 2,
            name: 'Proteção Total 12x',
            coverages: ['Roubo e furto qualificado', 'Quebra acidental'],
          },
          customer: CUSTOMER_EXAMPLE,
          device: {
            id: 2,
            name: 'iPhone 16 Pro',
            brand: { id: 1, name: 'Apple', meta: link('/brands/1') },
            meta: link('/models/2'),
            serial_number: '490154203237518',
            second_serial_number: null,
            is_used: false,
          },
          model: {
            id: 2,
            name: 'iPhone 16 Pro',
            brand: { id: 1, name: 'Apple', meta: link('/brands/1') },
            meta: link('/models/2'),
          },
          valor: 54,
          franchise: 675,
          lmi: 4500,
          installments_count: 12,
          policy_number: null,
          certificate: null,
          store_id: 3,
          metadata: { origin: 'pdv-loja-centro' },
          card: null,
          cancellation: null,
          created_at: '2026-11-21 10:15:00',
          updated_at: '2026-11-21 10:15:00',
        },
      ],
    },
  ),
)

export const InstallmentStatus = Type.Enum(['pending', 'paid', 'refused', 'canceled'])

const INSTALLMENT_EXAMPLE = {
  id: 5001,
  number: 1,
  amount: 54,
  due_date: '2026-11-21',
  status: 'paid',
  status_label: 'Pago',
  paid_at: '2026-11-21 10:20:00',
  paid_with: 'pix',
  subscription_id: 1001,
  attempts: 0,
  last_decline_code: null,
  next_attempt_on: null,
}

export const Installment = named(
  'Installment',
  Type.Object(
    {
      id: Type.Integer({ description: 'Identifies the installment in notify-payment calls (not `number`).' }),
      number: Type.Integer({ description: '1-based position.' }),
      amount: Money('Amount due.'),
      due_date: Type.String({ description: '`YYYY-MM-DD` in the service time zone.' }),
      status: InstallmentStatus,
      status_label: Type.String({ description: 'pt-BR label: Pendente, Pago, Recusado, Cancelado.' }),
      paid_at: Type.Union([Type.String(), Type.Null()], {
        description: 'When it was paid, `YYYY-MM-DD HH:MM:SS` in the service time zone; null while unpaid.',
      }),
      paid_with: PaidWithSchema,
      subscription_id: Type.Integer({ description: 'The subscription it belongs to.' }),
      attempts: Type.Integer({
        description:
          'Declined charges counted towards its retries: the recurrence’s (due date, then 1, 3 and 5 days later) and, for installment 1, the payment call’s. A charge made by a card update is not counted.',
      }),
      last_decline_code: Type.Union([Type.String(), Type.Null()], {
        description:
          'The gateway’s code of its last declined charge (`insufficient_funds`, …); null if none.',
      }),
      next_attempt_on: Type.Union([Type.String(), Type.Null()], {
        description:
          '`YYYY-MM-DD` (service time zone) of the recurrence’s next charge; null when nothing will charge it (paid, canceled, no retry left, no card on file, or collected by the partner).',
      }),
    },
    {
      examples: [INSTALLMENT_EXAMPLE],
    },
  ),
)

export const InstallmentList = Type.Array(Installment, {
  examples: [
    [
      INSTALLMENT_EXAMPLE,
      {
        id: 5002,
        number: 2,
        amount: 54,
        due_date: '2026-12-21',
        status: 'pending',
        status_label: 'Pendente',
        paid_at: null,
        paid_with: null,
        subscription_id: 1001,
        attempts: 0,
        last_decline_code: null,
        next_attempt_on: '2026-12-21',
      },
    ],
  ],
})

export const SubscriptionParams = Type.Object({
  subscriptionId: Id('Subscription id, as returned when contracting.', 1),
})
export type SubscriptionParams = Static<typeof SubscriptionParams>

export const SubscriptionListQuery = Type.Object({
  ...PageQuery.properties,
  'filter[status]': Type.Optional(
    Type.Enum(['pending', 'pago', 'canceled', 'expired'], { description: 'Only this status.' }),
  ),
  'filter[customer_document]': Type.Optional(
    Type.String({
      format: 'cpf-or-cnpj',
      maxLength: 20,
      description: 'Only this customer’s (CPF or CNPJ, bare or formatted).',
    }),
  ),
})
