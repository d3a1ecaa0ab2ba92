import { type Static, Type } from 'typebox'
import { DOCUMENTED_ONLY, Id, Money, named, nullable, Timestamp } from '../../http/http-schemas.js'
import { PageQuery } from '../../shared/pagination.js'
import { CLAIM_STATUSES, CLAIM_TYPES, DOCUMENT_KINDS } from './claim.rules.js'
import { ClaimDocument } from './claim-document.schemas.js'

const TYPES_TEXT =
  '`robbery` (Roubo), `qualified_theft` (Furto qualificado), `accidental_damage` (Quebra acidental), `liquid_damage` (Danos por líquido).'

export const ClaimType = Type.Enum([...CLAIM_TYPES], { description: `The peril: ${TYPES_TEXT}` })
export const ClaimStatus = Type.Enum([...CLAIM_STATUSES], {
  description:
    '`documents_pending` (Aguardando documentos) → `under_review` (Em análise) once no required document is missing → `approved` (Aprovado) or `denied` (Negado); `approved` → `settled` (Concluído). `withdrawn` (Desistência): the partner gave up before a decision.',
})
export const DocumentKind = Type.Enum([...DOCUMENT_KINDS])

export const ClaimBody = Type.Object(
  {
    subscription_id: Type.Optional(
      nullable(
        Id('The subscription the loss falls under; exactly one of this and `annual_plan_id`.'),
        'The subscription the loss falls under; exactly one of this and `annual_plan_id`.',
      ),
    ),
    annual_plan_id: Type.Optional(
      nullable(
        Id('The annual plan the loss falls under; exactly one of this and `subscription_id`.'),
        'The annual plan the loss falls under; exactly one of this and `subscription_id`.',
      ),
    ),
    type: ClaimType,
    occurred_at: Type.String({
      maxLength: 19,
      description:
        'When the loss occurred, `YYYY-MM-DD HH:MM:SS` in the service time zone: not in the future, at most the plan’s `claim_notice_days` ago, within the contract’s cover.',
    }),
    description: Type.String({
      minLength: 10,
      maxLength: 2000,
      description: 'What happened, 10 to 2,000 characters.',
    }),
    police_report: Type.Optional(
      nullable(
        Type.Object({
          number: Type.Optional(
            nullable(
              Type.String({ maxLength: 50 }),
              'The Boletim de Ocorrência number, at most 50 characters.',
            ),
          ),
          issued_on: Type.Optional(
            nullable(
              Type.String({ format: 'date' }),
              'When it was issued, `YYYY-MM-DD`: not after today (service time zone).',
            ),
          ),
        }),
        'The police report (Boletim de Ocorrência); its `number` is required for `robbery` and `qualified_theft`.',
      ),
    ),
  },
  {
    // Checked by the opening itself, so that its 422 names both fields.
    [DOCUMENTED_ONLY]: {
      oneOf: [
        { required: ['subscription_id'], properties: { subscription_id: { type: 'integer' } } },
        { required: ['annual_plan_id'], properties: { annual_plan_id: { type: 'integer' } } },
      ],
    },
    examples: [
      {
        subscription_id: 1,
        type: 'robbery',
        occurred_at: '2026-11-20 21:30:00',
        description: 'Celular roubado na saída do metrô, levaram também a carteira.',
        police_report: { number: 'BO-2026-112233', issued_on: '2026-11-21' },
      },
    ],
  },
)
export type ClaimBody = Static<typeof ClaimBody>

const nullableText = (description: string) => Type.Union([Type.String(), Type.Null()], { description })
const nullableMoney = (description: string) =>
  Type.Union([Type.Number(), Type.Null()], { description: `${description} In reais; null when denied.` })

const CLAIM_EXAMPLE = {
  id: 1,
  number: 'SIN-2026-000001',
  status: 'documents_pending',
  status_label: 'Aguardando documentos',
  type: 'robbery',
  type_label: 'Roubo',
  subscription_id: 1,
  annual_plan_id: null,
  customer: { id: 1, name: 'Maria da Silva', document: '52998224725' },
  device: { model: { id: 2, name: 'iPhone 16 Pro' }, serial_number: 'F2LXK0ABC123' },
  occurred_at: '2026-11-20 21:30:00',
  description: 'Celular roubado na saída do metrô, levaram também a carteira.',
  police_report: { number: 'BO-2026-112233', issued_on: '2026-11-21' },
  lmi: 8999,
  franchise: 1349.85,
  required_documents: ['police_report', 'imei_block', 'invoice'],
  documents_request: null,
  documents: [],
  decision: null,
  opened_by: 'partner',
  settlement: null,
  created_at: '2026-11-21 10:00:00',
  updated_at: '2026-11-21 10:00:00',
}

export const Claim = named(
  'Claim',
  Type.Object(
    {
      id: Type.Integer(),
      number: Type.String({
        description: '`SIN-<year of created_at>-<6 digits>`, unique across the service.',
      }),
      status: ClaimStatus,
      status_label: Type.String({ description: 'The status in Portuguese.' }),
      type: ClaimType,
      type_label: Type.String({ description: 'The peril in Portuguese.' }),
      subscription_id: Type.Union([Type.Integer(), Type.Null()]),
      annual_plan_id: Type.Union([Type.Integer(), Type.Null()]),
      customer: Type.Object({ id: Type.Integer(), name: Type.String(), document: Type.String() }),
      device: Type.Object({
        model: Type.Object({ id: Type.Integer(), name: Type.String() }),
        serial_number: nullableText('The contract’s serial number or IMEI when the claim was opened.'),
      }),
      occurred_at: Timestamp('When the loss occurred.'),
      description: Type.String(),
      police_report: Type.Union(
        [
          Type.Object({
            number: nullableText('The Boletim de Ocorrência number.'),
            issued_on: nullableText('`YYYY-MM-DD`.'),
          }),
          Type.Null(),
        ],
        { description: 'The police report; null when none was given.' },
      ),
      lmi: Money('The contract’s maximum indemnity limit.'),
      franchise: Money('The contract’s franchise (deductible), taken from an approved amount.'),
      required_documents: Type.Array(DocumentKind, {
        description:
          'Kinds still missing: `robbery` and `qualified_theft` need `police_report`, `imei_block` and `invoice`; `accidental_damage` and `liquid_damage` need `photo` and `invoice`; then the kinds of `documents_request` not uploaded since it was made.',
      }),
      documents_request: Type.Union(
        [
          Type.Object({
            kinds: Type.Array(DocumentKind, { description: 'The kinds the adjuster asked for.' }),
            message: Type.String({
              description: 'What the adjuster asks of the insured, 10 to 500 characters.',
            }),
            requested_at: Timestamp('When it was asked.'),
          }),
          Type.Null(),
        ],
        {
          description:
            'The adjuster’s latest request for documents (event `claim.documents_requested`): the claim is `documents_pending` until a document of each kind is uploaded after it, then `under_review` again. Null when none was made.',
        },
      ),
      documents: Type.Array(ClaimDocument, { description: 'Uploaded documents, oldest first.' }),
      decision: Type.Union(
        [
          Type.Object({
            outcome: Type.Enum(['approved', 'denied']),
            settlement_method: Type.Union([Type.Enum(['repair', 'replacement', 'indemnity']), Type.Null()]),
            approved_amount: nullableMoney('Approved amount.'),
            payable_amount: nullableMoney('Approved amount − franchise, never below 0.'),
            reason_code: nullableText(
              'Why it was denied: `not_covered`, `outside_coverage`, `late_notice`, `documents_invalid`, `fraud_suspected`, `other`.',
            ),
            note: nullableText('The adjuster’s note to the partner.'),
            decided_at: Timestamp('When it was decided.'),
          }),
          Type.Null(),
        ],
        { description: 'The decision; null until decided.' },
      ),
      opened_by: Type.Enum(['partner', 'insured'], {
        description:
          'Who opened it: `partner` through this API, `insured` on the insured’s own page (Portal do segurado). Either way the claim is the partner’s, with the same events and webhooks.',
      }),
      settlement: Type.Union(
        [
          Type.Object({
            reference: nullableText('Repair order or transfer id.'),
            settled_at: Timestamp('When.'),
          }),
          Type.Null(),
        ],
        { description: 'The settlement; null until settled.' },
      ),
      created_at: Timestamp('When it was opened.'),
      updated_at: Timestamp('When it last changed.'),
    },
    { examples: [CLAIM_EXAMPLE] },
  ),
)

export const ClaimParams = Type.Object({ id: Id('Claim id, as returned when opened.', 1) })

export const ClaimListQuery = Type.Object({
  ...PageQuery.properties,
  'filter[status]': Type.Optional(
    Type.Enum([...CLAIM_STATUSES], { description: 'Only claims with this status.' }),
  ),
  'filter[subscription_id]': Type.Optional(Id('Only this subscription’s claims.')),
  'filter[annual_plan_id]': Type.Optional(Id('Only this annual plan’s claims.')),
  'filter[customer_document]': Type.Optional(
    Type.String({
      format: 'cpf-or-cnpj',
      maxLength: 20,
      description: 'Only this customer’s (CPF or CNPJ, bare or formatted).',
    }),
  ),
})
export type ClaimListQuery = Static<typeof ClaimListQuery>
