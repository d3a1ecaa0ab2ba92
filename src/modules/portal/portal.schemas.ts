import { type Static, Type } from 'typebox'
import { consoleError } from '../../console/console-schemas.js'
import { Id } from '../../http/http-schemas.js'
import { Claim } from '../claims/claim.schemas.js'

// The portal's JSON API (README, Portal do segurado): its own OpenAPI document at
// GET /api/openapi.json of the portal listener, from which the page's types are generated.

export const CodeRequestBody = Type.Object({
  document: Type.String({ minLength: 1, maxLength: 40, description: 'CPF or CNPJ, formatted or bare.' }),
})
export type CodeRequestBody = Static<typeof CodeRequestBody>

export const CodeSent = Type.Object({
  masked_email: Type.String({
    description:
      'Where the code went, masked (`a***@e***.com`). The same answer, with a made-up address, for a document nobody holds.',
  }),
  expires_in_seconds: Type.Integer({ description: 'How long the code is valid: 600.' }),
})

export const CodeSignInBody = Type.Object({
  document: Type.String({ minLength: 1, maxLength: 40 }),
  code: Type.String({ minLength: 1, maxLength: 20, description: 'The 6 digits the e-mail gave.' }),
})
export type CodeSignInBody = Static<typeof CodeSignInBody>

export const LinkSignInBody = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'What follows `#/entrar/` in the link a message carried.',
  }),
})

export const Insured = Type.Object({
  name: Type.String(),
  document_kind: Type.Enum(['cpf', 'cnpj']),
  time_zone: Type.String({ description: 'The service’s time zone: every time shown is in it.' }),
})

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()])

export const PortalContract = Type.Object({
  kind: Type.Enum(['subscription', 'annual_plan']),
  id: Type.Integer(),
  policy_number: Nullable(Type.String()),
  partner: Type.Object({ name: Type.String() }),
  store: Nullable(Type.String({ description: 'The store that sold it.' })),
  plan: Type.Object({
    name: Type.String(),
    perils: Type.Array(
      Type.Object({
        code: Type.Enum(['robbery', 'qualified_theft', 'accidental_damage', 'liquid_damage']),
        label: Type.String(),
      }),
    ),
  }),
  device: Type.Object({ name: Type.String(), serial_number: Nullable(Type.String()) }),
  status: Type.String(),
  status_label: Type.String(),
  coverage: Type.Object({
    starts_on: Nullable(Type.String({ description: '`YYYY-MM-DD`; null before it starts.' })),
    ends_on: Nullable(Type.String()),
  }),
  lmi: Type.Number(),
  premium: Type.Number({ description: 'Monthly (subscription) or whole (annual plan), in reais.' }),
  installments: Type.Array(
    Type.Object({
      id: Type.Integer({ description: 'The installment’s id: its PIX code is asked for by it.' }),
      number: Type.Integer(),
      amount: Type.Number(),
      due_date: Type.String(),
      status: Type.Enum(['pending', 'paid', 'refused', 'canceled']),
      status_label: Type.String(),
      overdue: Type.Boolean(),
      paid_at: Nullable(Type.String()),
      payable: Type.Boolean({ description: 'The insured may pay it here now (own gateway).' }),
    }),
  ),
  paying: Type.Object(
    {
      own_gateway: Type.Boolean({ description: 'The partner collects through Amparo: paid here.' }),
      replace_card: Type.Boolean({ description: 'A subscription in force: its card may be replaced.' }),
      pay_by_card: Type.Boolean({ description: 'Something is payable now by card.' }),
      pix: Type.Boolean({ description: 'Something is payable now by PIX.' }),
    },
    { description: 'What the insured may pay here (README, Portal do segurado).' },
  ),
  certificate_url: Nullable(
    Type.String({ description: 'The certificate PDF on this listener; null when not in force.' }),
  ),
  open_claim_id: Nullable(Type.Integer()),
  can_claim: Type.Boolean(),
  can_withdraw: Type.Boolean({ description: 'Within 7 days of contracting, and not ended.' }),
  next_step: Type.Enum([
    'pay_first',
    'pay_overdue',
    'follow_claim',
    'claim_if_needed',
    'awaiting_start',
    'ended',
  ]),
  next_step_text: Type.String(),
  contracted_at: Type.String(),
})

export const PortalContracts = Type.Object({ data: Type.Array(PortalContract) })

export const ContractParams = Type.Object({
  kind: Type.Enum(['subscription', 'annual_plan']),
  id: Id('Contract id.', 1),
})

export const PortalClaim = Type.Intersect([
  Claim,
  Type.Object({ partner: Type.Object({ name: Type.String() }) }),
])
export const PortalClaims = Type.Object({ data: Type.Array(PortalClaim) })

export const PortalClaimParams = Type.Object({ id: Id('Claim id.', 1) })

export const Withdrawal = Type.Object({
  kind: Type.Enum(['subscription', 'annual_plan']),
  id: Type.Integer(),
  status: Type.String(),
  status_label: Type.String(),
  refund_amount: Nullable(Type.Number({ description: 'Annual plan: what is refunded, in reais.' })),
})

/** The errors every portal write can answer; with signedInErrors, every signed-in route. */
export const portalErrors = {
  403: consoleError('The request came from another origin.', 'origin_refused'),
  500: consoleError('Server fault; quote `request_id`.', 'server_error'),
  503: consoleError('The database is unreachable for a moment.', 'service_unavailable'),
}
export const signedInErrors = {
  401: consoleError('Not signed in, or the session ended (30 min idle).', 'unauthenticated'),
  ...portalErrors,
}

export const SubscriptionContractParams = Type.Object({ id: Id('Subscription id.', 1) })
export const AnnualPlanContractParams = Type.Object({ id: Id('Annual plan id.', 1) })
export const InstallmentPixParams = Type.Object({
  id: Id('Subscription id.', 1),
  installmentId: Id('The installment’s `id` (Minhas proteções lists it).', 1),
})
export const PixCodeParams = Type.Object({ id: Id('The PIX code’s id.', 1) })
export const PixImageParams = Type.Object({
  image: Type.String({ pattern: '^[A-Za-z0-9_-]{16,64}\\.png$', description: '`<token>.png`.' }),
})

/** The partner API's PIX code, its QR image an address on this portal. */
export const PortalPixCode = Type.Object({
  id: Type.Integer({ description: 'The code’s id: its status at `GET /api/pix-codes/{id}`.' }),
  status: Type.Enum(['pending', 'paid', 'expired', 'failed', 'canceled'], {
    description: '`pending` until paid or expired; `expired` past `expires_at` (ask for a new one).',
  }),
  amount: Type.Number({ description: 'Amount to pay, in reais.' }),
  qr_code: Type.String({ description: 'The PIX copia-e-cola text.' }),
  qr_code_png: Type.String({ description: 'The QR code as a PNG, an address on this portal.' }),
  expires_at: Type.String({ description: '`YYYY-MM-DD HH:MM:SS` in the service’s time zone.' }),
})
