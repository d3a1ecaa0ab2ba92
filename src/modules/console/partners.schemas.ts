import { Type } from 'typebox'
import { Id, nullable } from '../../http/http-schemas.js'
import { Instant, NullableInstant } from './console.schemas.js'

const Gateway = Type.Enum(['external', 'own'], {
  description: '`external`: the partner collects and notifies; `own`: Amparo charges cards itself.',
})

export const PartnerParams = Type.Object({ id: Id('Partner id.', 1) })
export const CredentialParams = Type.Object({
  id: Id('Partner id.', 1),
  credentialId: Id('Credential id.', 1),
})

export const NotifyInsuredBody = Type.Object(
  {
    notify_insured: Type.Boolean({
      description: "true: Amparo e-mails the partner's customers; false: only their sign-in codes and links.",
    }),
  },
  { examples: [{ notify_insured: false }] },
)

export const PartnerList = Type.Array(
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    document: nullable(Type.String(), 'CNPJ.'),
    gateway: Gateway,
    active_credentials: Type.Integer(),
    active_plans: Type.Integer(),
    failing_endpoints: Type.Integer({ description: 'Webhook endpoints failing now.' }),
    created_at: Instant('Creation.'),
  }),
  {
    examples: [
      [
        {
          id: 1,
          name: 'Loja Exemplo',
          document: '11222333000181',
          gateway: 'external',
          active_credentials: 1,
          active_plans: 3,
          failing_endpoints: 0,
          created_at: '2026-01-05T12:00:00.000Z',
        },
      ],
    ],
  },
)

export const Credential = Type.Object(
  {
    id: Type.Integer(),
    client_id: Type.String(),
    created_at: Instant('Issued.'),
    revoked_at: NullableInstant('Revoked.'),
  },
  { description: 'Client credentials; the secret is never shown again after issue.' },
)

const CREDENTIAL_EXAMPLE = {
  id: 1,
  client_id: 'test_5f2c0a9d3e1b7c4a8f6d2e0b',
  created_at: '2026-01-05T12:00:00.000Z',
  revoked_at: null,
}

export const IssuedCredential = Type.Object(
  {
    ...Credential.properties,
    client_secret: Type.String({ description: 'Shown in this answer only; Amparo keeps only its hash.' }),
  },
  { examples: [{ ...CREDENTIAL_EXAMPLE, client_secret: 'Zk2x9Qd7…(43 characters)' }] },
)
export const RevokedCredential = Type.Object(Credential.properties, {
  examples: [{ ...CREDENTIAL_EXAMPLE, revoked_at: '2026-11-27T06:00:00.000Z' }],
})

export const PartnerDetail = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    document: nullable(Type.String(), 'CNPJ.'),
    gateway: Gateway,
    notify_insured: Type.Boolean({
      description:
        "Whether Amparo e-mails the partner's customers (README, Messages to the insured); off for a partner that writes to them itself. Sign-in codes and links go either way.",
    }),
    lmi_factors: Type.Object({ min_bp: Type.Integer(), max_bp: Type.Integer() }),
    created_at: Instant('Creation.'),
    credentials: Type.Array(Credential),
    plans: Type.Array(
      Type.Object({
        id: Type.Integer(),
        kind: Type.Enum(['subscription', 'annual']),
        name: Type.String(),
        installments: Type.Integer(),
        monthly_rate_bp: nullable(Type.Integer(), 'Subscription: monthly premium rate, basis points.'),
        franchise_rate_bp: nullable(Type.Integer(), 'Franchise rate, basis points.'),
        annual_rate_bp: nullable(Type.Integer(), 'Annual: premium rate, basis points.'),
        coverage_types: Type.Array(Type.String()),
        is_default: Type.Boolean(),
        active: Type.Boolean(),
        created_at: Instant('Creation.'),
      }),
    ),
    webhook_endpoints: Type.Array(
      Type.Object({
        id: Type.Integer(),
        url: Type.String(),
        events: Type.Array(Type.String()),
        description: nullable(Type.String(), 'The partner’s description.'),
        status: Type.Enum(['enabled', 'disabled']),
        failing_since: NullableInstant('First failed attempt since the last success.'),
        deliveries_24h: Type.Object(
          { succeeded: Type.Integer(), failed: Type.Integer(), pending: Type.Integer() },
          { description: 'Deliveries created in the last 24 hours, by status.' },
        ),
        failing: Type.Array(
          Type.Object({
            id: Type.Integer(),
            event_id: Type.String(),
            event_type: Type.String(),
            status: Type.Enum(['pending', 'succeeded', 'failed']),
            attempts: Type.Integer(),
            last_status_code: nullable(Type.Integer(), 'HTTP status of the last attempt.'),
            last_error: nullable(Type.String(), 'Why the last attempt failed.'),
            next_attempt_at: NullableInstant('Next attempt.'),
            created_at: Instant('Creation.'),
          }),
          { description: 'Deliveries given up or being retried after a failure, newest first (at most 20).' },
        ),
      }),
      { description: 'Never a signing secret.' },
    ),
  },
  {
    examples: [
      {
        id: 1,
        name: 'Loja Exemplo',
        document: '11222333000181',
        gateway: 'own',
        notify_insured: true,
        lmi_factors: { min_bp: 5000, max_bp: 10_000 },
        created_at: '2026-01-05T12:00:00.000Z',
        credentials: [CREDENTIAL_EXAMPLE],
        plans: [
          {
            id: 1,
            kind: 'subscription',
            name: 'Proteção Total 12x',
            installments: 12,
            monthly_rate_bp: 150,
            franchise_rate_bp: 1500,
            annual_rate_bp: null,
            coverage_types: ['robbery', 'qualified_theft', 'accidental_damage'],
            is_default: false,
            active: true,
            created_at: '2026-01-05T12:00:00.000Z',
          },
        ],
        webhook_endpoints: [
          {
            id: 1,
            url: 'https://partner.example.com/amparo/webhooks',
            events: ['*'],
            description: null,
            status: 'enabled',
            failing_since: '2026-11-27T04:10:00.000Z',
            deliveries_24h: { succeeded: 120, failed: 1, pending: 2 },
            failing: [
              {
                id: 881,
                event_id: 'evt_01JD7Q2',
                event_type: 'claim.approved',
                status: 'pending',
                attempts: 3,
                last_status_code: 503,
                last_error: null,
                next_attempt_at: '2026-11-27T05:10:00.000Z',
                created_at: '2026-11-27T04:10:00.000Z',
              },
            ],
          },
        ],
      },
    ],
  },
)
