import type { Generated, SqlBool } from 'kysely'

export type GatewayMode = 'external' | 'own'

export interface PartnersTable {
  id: Generated<number>
  name: string
  document: string | null
  gateway: GatewayMode
  /** Authorized LMI range, as factors of the model's default LMI, in basis points (5000 = 0.5). */
  lmi_min_factor_bp: number
  lmi_max_factor_bp: number
  /** How far the partner's sandbox clock is ahead of real time (docs/decisions.md, Sandbox test clock); 0 in production. */
  clock_offset_seconds: Generated<number>
  /** Real instant until which a clock advance in progress holds the partner; null when none. */
  clock_advancing_until: string | null
  /** The `Idempotency-Key` of the last advance and the offset it goes to: its retry finishes it. */
  clock_advance_key: string | null
  clock_advance_to: number | null
  /** The operator's switch: whether Amparo e-mails this partner's customers (on by default). */
  notify_insured: Generated<SqlBool>
  created_at: string
}

export interface CredentialsTable {
  id: Generated<number>
  partner_id: number
  client_id: string
  secret_hash: string
  created_at: string
  revoked_at: string | null
}

export interface PartnerUsersTable {
  id: Generated<number>
  partner_id: number
  email: string
  password_hash: string
  created_at: string
  disabled: SqlBool
}
