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
      number: Type.Integer(),
      amount: Type.Number(),
      due_date: Type.String(),
      status: Type.Enum(['pending', 'paid', 'refused', 'canceled']),
      status_label: Type.String(),
      overdue: Type.Boolean(),
      paid_at: Nullable(Type.String()),
    }),
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
