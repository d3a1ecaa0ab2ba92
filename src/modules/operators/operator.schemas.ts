import { type Static, Type } from 'typebox'

export const Role = Type.Union([Type.Literal('admin'), Type.Literal('adjuster'), Type.Literal('viewer')], {
  description: 'admin ⊃ adjuster ⊃ viewer.',
})

const PasswordChangeRequired = Type.Boolean({
  description:
    'The password is a one-time one (created or reset by an admin): until `changeOwnPassword` replaces it, every other call answers 403 `password_change_required`.',
})

export const SignedInOperator = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    role: Role,
    password_change_required: PasswordChangeRequired,
    totp_enrolled: Type.Boolean({
      description: 'A second factor is enrolled: `changeOwnPassword` asks its code.',
    }),
  },
  { additionalProperties: false },
)

/** The service's zone, sent with the operator: the console shows every time and month in it. */
export const TimeZone = Type.String({
  description:
    'The service’s time zone (`AMPARO_TIMEZONE`, IANA): the console shows every time and month in it.',
  examples: ['America/Sao_Paulo'],
})

/** A completed sign-in, or the session as it stands. */
export const SignedIn = Type.Object({
  stage: Type.Literal('done'),
  operator: SignedInOperator,
  time_zone: TimeZone,
})

export const SignInBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 255 }),
  password: Type.String({ minLength: 1, maxLength: 255 }),
  enroll: Type.Optional(
    Type.Boolean({
      description: 'Enrol a TOTP second factor now (where it is optional: outside production).',
    }),
  ),
})
export type SignInBody = Static<typeof SignInBody>

export const SignInResult = Type.Union([
  Type.Object({ stage: Type.Literal('totp') }, { description: 'Send the authenticator’s code next.' }),
  Type.Object(
    {
      stage: Type.Literal('enroll'),
      otpauth_url: Type.String({ description: 'The new TOTP seed, shown once: scan it, then send a code.' }),
      qr_svg: Type.String({ description: 'The same as a QR code, an SVG document.' }),
    },
    { description: 'Enrol a TOTP second factor, then send a code.' },
  ),
  Type.Object(
    { stage: Type.Literal('done'), operator: SignedInOperator, time_zone: TimeZone },
    { description: 'Signed in.' },
  ),
])

export const TotpBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 16 }) })

export const PasswordChangeBody = Type.Object({
  current_password: Type.String({ minLength: 1, maxLength: 255 }),
  new_password: Type.String({ minLength: 1, maxLength: 255, description: '12 to 200 characters.' }),
  code: Type.Optional(
    Type.String({
      maxLength: 16,
      description:
        'The authenticator’s code: required with a second factor enrolled, except at the forced change of a one-time password.',
    }),
  ),
})

/** The session as it stands: the signed-in operator and the service's zone. */
export const SessionState = Type.Object({ operator: SignedInOperator, time_zone: TimeZone })

export const Operator = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    role: Role,
    totp_enrolled: Type.Boolean(),
    disabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    password_changed_at: Type.String({ format: 'date-time' }),
    password_change_required: PasswordChangeRequired,
  },
  { additionalProperties: false },
)

export const NewOperatorBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 255 }),
  role: Role,
})

export const OperatorWithPassword = Type.Object({
  operator: Operator,
  password: Type.String({ description: 'The one-time password, shown this once.' }),
})

export const OperatorId = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) })

export const AuditEntry = Type.Object({
  id: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  actor: Type.Union([Type.Integer(), Type.Null()], { description: 'The operator’s id; null for the CLI.' }),
  actor_label: Type.String({ description: 'The operator’s e-mail, or `cli:<os user>`.' }),
  action: Type.String({ description: '`claim.approve`, `credentials.issue`, `operator.create`, …' }),
  record_type: Type.String(),
  record_id: Type.String(),
  before: Type.Unknown({ description: 'The record before (JSON), null if it did not exist.' }),
  after: Type.Unknown({ description: 'The record after (JSON).' }),
  ip: Type.Union([Type.String(), Type.Null()]),
})

export const AuditQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: 1 }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  action: Type.Optional(Type.String({ maxLength: 100 })),
  operator: Type.Optional(
    Type.String({ maxLength: 255, description: 'An operator’s id or e-mail, or `cli:<user>`.' }),
  ),
})

export const AuditPage = Type.Object({
  data: Type.Array(AuditEntry),
  current_page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
  last_page: Type.Integer(),
})
