import type { Readable } from 'node:stream'
import { type Static, Type } from 'typebox'
import { Id, nullable, PaidWithSchema } from '../../http/http-schemas.js'
import {
  CLAIM_STATUSES,
  CLAIM_TYPES,
  DENIAL_REASONS,
  DOCUMENT_KINDS,
  SETTLEMENT_METHODS,
} from '../claims/claim.rules.js'
import { ACCEPTED_CONTENT_TYPES } from '../claims/claim-document.rules.js'
import { FraudEvidence, FraudSignal } from './claim-evidence.schemas.js'
import { Activity, Assignee } from './claim-work.schemas.js'
import {
  Cents,
  ConsolePage,
  ConsolePageQuery,
  Instant,
  NullableCents,
  PartnerRef,
} from './console.schemas.js'

const ClaimStatus = Type.Enum([...CLAIM_STATUSES])
const ClaimType = Type.Enum([...CLAIM_TYPES])
const nullableText = (description: string) => nullable(Type.String(), description)
const Device = Type.Object({
  model: Type.Object({ id: Type.Integer(), name: Type.String() }),
  serial_number: nullableText('The serial number or IMEI at opening.'),
})

const ClaimDeadline = nullable(
  Type.Object({
    state: Type.Enum(['suspended', 'overdue', 'due_this_week', 'on_time'], {
      description:
        '`suspended` while documents are awaited; `overdue` past `due_on`; `due_this_week` when `due_on` is today or in the six days after; `on_time` otherwise.',
    }),
    state_label: Type.String({ description: 'The state in Portuguese.' }),
    due_on: nullable(
      Type.String({ format: 'date' }),
      'The last day to settle, in the service’s zone: 30 days after the day the last required document arrived. Null while suspended.',
    ),
    days_left: nullable(
      Type.Integer(),
      'Days from today to `due_on`, negative once overdue; null while suspended.',
    ),
  }),
  'The claim’s deadline (docs/decisions.md, Claim deadline); null once closed (denied, settled, withdrawn).',
)

export const ClaimQueueQuery = Type.Object({
  ...ConsolePageQuery.properties,
  status: Type.Optional(
    Type.Enum([...CLAIM_STATUSES, 'open'], {
      description:
        '`open`: awaiting documents, under review, or approved and not settled. Absent: every status.',
    }),
  ),
  type: Type.Optional(ClaimType),
  partner_id: Type.Optional(Id('Only this partner’s claims.')),
  fraud: Type.Optional(Type.Boolean({ description: '`true`: only claims with a fraud signal.' })),
  assignee: Type.Optional(
    Type.Enum(['me', 'none'], {
      description:
        '`me`: only the signed-in operator’s claims ("Meus sinistros"); `none`: only unassigned ones.',
    }),
  ),
})
export type ClaimQueueQuery = Static<typeof ClaimQueueQuery>

/** The queue's filters without its pages: the CSV holds them all. */
export const ClaimExportQuery = Type.Omit(ClaimQueueQuery, ['page', 'per_page'])

const QUEUE_ITEM_EXAMPLE = {
  id: 1,
  number: 'SIN-2026-000001',
  status: 'under_review',
  status_label: 'Em análise',
  type: 'accidental_damage',
  type_label: 'Quebra acidental',
  partner: { id: 1, name: 'Loja Exemplo' },
  customer_name: 'Maria da Silva',
  device: { model: { id: 2, name: 'iPhone 16 Pro' }, serial_number: '490154203237518' },
  occurred_at: '2026-11-20T23:30:00.000Z',
  opened_at: '2026-11-21T13:00:00.000Z',
  age_days: 16,
  deadline: { state: 'due_this_week', state_label: 'Vence esta semana', due_on: '2026-12-11', days_left: 4 },
  fraud_signals: ['early_claim'],
  lmi_cents: 899_900,
  franchise_cents: 134_985,
  approved_amount_cents: null,
  payable_amount_cents: null,
  assignee: null,
}

export const ClaimQueueItem = Type.Object({
  id: Type.Integer(),
  number: Type.String(),
  status: ClaimStatus,
  status_label: Type.String(),
  type: ClaimType,
  type_label: Type.String(),
  partner: PartnerRef,
  customer_name: Type.String(),
  device: Device,
  occurred_at: Instant('When the loss occurred.'),
  opened_at: Instant('When the claim was opened.'),
  age_days: Type.Integer({
    minimum: 0,
    description: 'Calendar days of the service’s zone since the day it was opened (0 on that day).',
  }),
  deadline: ClaimDeadline,
  fraud_signals: Type.Array(FraudSignal),
  lmi_cents: Cents('The contract’s LMI.'),
  franchise_cents: Cents('The contract’s franchise.'),
  approved_amount_cents: NullableCents('Approved amount.'),
  payable_amount_cents: NullableCents('Payable: approved − franchise, ≥ 0.'),
  assignee: Assignee,
})

export const ClaimQueuePage = ConsolePage(ClaimQueueItem, QUEUE_ITEM_EXAMPLE)

export const DeskClaimParams = Type.Object({ id: Id('Claim id.', 1) })
export const DeskDocumentParams = Type.Object({ id: Id('Claim id.', 1), documentId: Id('Document id.', 1) })

const Contract = Type.Object({
  kind: Type.Enum(['subscription', 'annual_plan']),
  id: Type.Integer({
    description: 'The id the partner’s API uses (`/subscriptions/{id}`, `/annual-plans/{id}`).',
  }),
  policy_number: nullableText('The policy number (`AMP-2026-000006`), given at payment; null before it.'),
  status: Type.String({ description: 'As the partner API shows it (`pago`, `expired`, `protected`…).' }),
  status_label: Type.String({ description: 'The status in Portuguese.' }),
  plan: Type.Object({ id: Type.Integer(), name: Type.String() }),
  starts_at: nullable(
    Type.String({ format: 'date-time' }),
    'Cover start (annual plan: after payment; subscription: contracting).',
  ),
  ends_on: nullableText('Subscription: the day its cover ends (`YYYY-MM-DD`, service zone).'),
  ends_at: nullable(Type.String({ format: 'date-time' }), 'Annual plan: when its cover ends.'),
  lmi_cents: Cents('LMI.'),
  franchise_cents: Cents('Franchise.'),
  premium_cents: Cents('Premium in full (a subscription: monthly premium × installments).'),
  installments: Type.Integer(),
  paid_with: PaidWithSchema,
  serial_numbers: Type.Array(Type.String(), { description: 'Serial numbers or IMEIs.' }),
  contracted_at: Instant('Contracting.'),
})

// The queue's deadline and age are the queue's: a claim's page does not show them.
const { age_days: _age, deadline: _deadline, ...CLAIM_EXAMPLE } = QUEUE_ITEM_EXAMPLE
const DESK_CLAIM_EXAMPLE = {
  ...CLAIM_EXAMPLE,
  fraud_signals: ['reused_document'],
  fraud_evidence: [
    {
      signal: 'reused_document',
      label: 'Documento já enviado em sinistro de outro cliente',
      claims: [
        {
          id: 7,
          number: 'SIN-2026-000007',
          status: 'settled',
          status_label: 'Concluído',
          partner: { id: 2, name: 'Outra Loja' },
          contract: { kind: 'annual_plan', id: 3, policy_number: 'AMP-2026-000003' },
          customer_name: 'João Pereira',
          opened_at: '2026-10-02T14:00:00.000Z',
          document: {
            id: 12,
            kind: 'photo',
            filename: 'tela.jpg',
            own_id: 1,
            own_filename: 'tela-quebrada.jpg',
          },
        },
      ],
      card_changed_at: null,
      coverage_started_at: null,
    },
  ],
  updated_at: '2026-11-21T13:05:00.000Z',
  description: 'A tela quebrou após uma queda na calçada.',
  police_report: null,
  contract: {
    kind: 'subscription',
    id: 1,
    policy_number: 'AMP-2026-000001',
    status: 'pago',
    status_label: 'Pago',
    plan: { id: 1, name: 'Proteção Total 12x' },
    starts_at: '2026-10-01T15:00:00.000Z',
    ends_on: '2027-10-01',
    ends_at: null,
    lmi_cents: 899_900,
    franchise_cents: 134_985,
    premium_cents: 1_438_800,
    installments: 12,
    paid_with: 'pix',
    serial_numbers: ['490154203237518'],
    contracted_at: '2026-10-01T15:00:00.000Z',
  },
  customer: {
    id: 1,
    name: 'Maria da Silva',
    document: '52998224725',
    document_kind: 'cpf',
    email: 'maria@example.com',
    phone: '11987654321',
    city: 'São Paulo',
    state: 'SP',
  },
  device: { brand: 'Apple', model: { id: 2, name: 'iPhone 16 Pro' }, serial_number: '490154203237518' },
  timeline: [
    { id: 'evt_01JD7Q2', type: 'subscription.created', object_id: 1, created_at: '2026-10-01T15:00:00.000Z' },
    { id: 'evt_01JD7Q3', type: 'claim.opened', object_id: 1, created_at: '2026-11-21T13:00:00.000Z' },
  ],
  required_documents: [],
  documents_request: null,
  documents: [
    {
      id: 1,
      kind: 'photo',
      filename: 'tela-quebrada.jpg',
      content_type: 'image/jpeg',
      size: 182_044,
      sha256: '9f2c7c3b1e0a6d4f8b5a2e7c1d3f6a9b0c4e8d2f7a1b5c9e3d6f0a4b8c2e7d1f',
      uploaded_at: '2026-11-21T13:04:05.000Z',
      url: '/api/claims/1/documents/1',
    },
  ],
  decision: null,
  settlement: null,
  activity: [
    {
      id: 'claim:1',
      kind: 'opened',
      at: '2026-11-21T13:00:00.000Z',
      by: { type: 'partner', operator_id: null, label: 'Loja Exemplo' },
    },
    {
      id: 'document:1',
      kind: 'document_received',
      at: '2026-11-21T13:04:05.000Z',
      by: { type: 'partner', operator_id: null, label: 'Loja Exemplo' },
      document: { id: 1, kind: 'photo', filename: 'tela-quebrada.jpg' },
    },
  ],
  payable_preview: {
    lmi_cents: 899_900,
    franchise_cents: 134_985,
    max_approved_cents: 899_900,
    payable_at_max_cents: 764_915,
  },
}
const {
  customer_name: _name,
  lmi_cents: _lmi,
  franchise_cents: _f,
  approved_amount_cents: _a,
  payable_amount_cents: _p,
  ...DESK_EXAMPLE
} = DESK_CLAIM_EXAMPLE

export const DeskClaim = Type.Object(
  {
    id: Type.Integer(),
    number: Type.String(),
    status: ClaimStatus,
    status_label: Type.String(),
    type: ClaimType,
    type_label: Type.String(),
    partner: PartnerRef,
    occurred_at: Instant('When the loss occurred.'),
    opened_at: Instant('When the claim was opened.'),
    updated_at: Instant('Last change.'),
    description: Type.String(),
    police_report: nullable(
      Type.Object({ number: nullableText('Number.'), issued_on: nullableText('`YYYY-MM-DD`.') }),
      'The police report (Boletim de Ocorrência).',
    ),
    contract: Contract,
    customer: Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      document: Type.String(),
      document_kind: Type.Enum(['cpf', 'cnpj']),
      email: Type.String(),
      phone: Type.String(),
      city: nullableText('City.'),
      state: nullableText('State.'),
    }),
    device: Type.Object({ brand: Type.String(), ...Device.properties }),
    timeline: Type.Array(
      Type.Object({
        id: Type.String({ description: 'The event’s public id.' }),
        type: Type.String(),
        object_id: Type.Integer({
          description: 'The id of the event’s object (contract, installment, claim).',
        }),
        created_at: Instant('When it happened.'),
      }),
      {
        description:
          'The contract’s events, its installments’ and its claims’, oldest first (as kept by the events outbox).',
      },
    ),
    required_documents: Type.Array(Type.Enum([...DOCUMENT_KINDS]), {
      description: 'Kinds still awaited: the type’s missing ones, then those requested and not yet answered.',
    }),
    documents_request: nullable(
      Type.Object({
        kinds: Type.Array(Type.Enum([...DOCUMENT_KINDS])),
        message: Type.String({ description: 'What the adjuster asked for (the partner sees it).' }),
        requested_at: Instant('When it was asked.'),
      }),
      'The latest request for documents; null when none was made.',
    ),
    documents: Type.Array(
      Type.Object({
        id: Type.Integer(),
        kind: Type.Enum([...DOCUMENT_KINDS]),
        filename: Type.String(),
        content_type: Type.String(),
        size: Type.Integer(),
        sha256: Type.String(),
        uploaded_at: Instant('Upload.'),
        url: Type.String({ description: 'Where the console reads its bytes (an attachment, sandboxed).' }),
      }),
    ),
    fraud_signals: Type.Array(FraudSignal),
    fraud_evidence: FraudEvidence,
    decision: nullable(
      Type.Object({
        outcome: Type.Enum(['approved', 'denied']),
        settlement_method: Type.Union([Type.Enum([...SETTLEMENT_METHODS]), Type.Null()], {
          description: 'When approved.',
        }),
        approved_amount_cents: NullableCents('Approved amount.'),
        payable_amount_cents: NullableCents('Payable amount.'),
        reason_code: Type.Union([Type.Enum([...DENIAL_REASONS]), Type.Null()], {
          description: 'When denied.',
        }),
        note: nullableText('The note the partner sees.'),
        decided_at: Instant('Decision.'),
        decided_by: nullableText(
          'Who decided: an operator’s e-mail, `cli:<user>`, or the partner (sandbox).',
        ),
      }),
      'The decision; null before one.',
    ),
    settlement: nullable(
      Type.Object({
        reference: nullableText('Repair order or transfer id.'),
        settled_at: Instant('Settlement.'),
        settled_by: nullableText('Who settled it.'),
      }),
      'The settlement; null before one.',
    ),
    assignee: Assignee,
    activity: Activity,
    payable_preview: Type.Object(
      {
        lmi_cents: Cents('The most that can be approved.'),
        franchise_cents: Cents('Taken from the approved amount.'),
        max_approved_cents: Cents('Same as lmi_cents.'),
        payable_at_max_cents: Cents('Payable when the LMI is approved: LMI − franchise, ≥ 0.'),
      },
      {
        description:
          'Payable = max(0, approved − franchise): what the decision form shows before it is confirmed.',
      },
    ),
  },
  { examples: [DESK_EXAMPLE] },
)

export const DocumentBytes = Type.Unsafe<Readable>({
  description:
    'The document’s bytes, as an attachment, with its recognised type (the console previews an image in an `<img>`, a PDF with pdf.js).',
  content: Object.fromEntries(
    ACCEPTED_CONTENT_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
  ),
  headers: {
    'Content-Disposition': {
      type: 'string',
      description: '`attachment`, with the document’s filename.',
    },
    'X-Content-Type-Options': { type: 'string', description: '`nosniff`.' },
    'Content-Security-Policy': {
      type: 'string',
      description: '`sandbox`, nothing loaded, no framing: the bytes never run as a page.',
    },
    'Cache-Control': { type: 'string', description: '`private, no-store`.' },
  },
})
