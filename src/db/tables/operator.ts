import type { Generated, SqlBool } from 'kysely'

/** admin ⊃ adjuster ⊃ viewer (README, Operator console). */
export type OperatorRole = 'admin' | 'adjuster' | 'viewer'
export const OPERATOR_ROLES: readonly OperatorRole[] = ['viewer', 'adjuster', 'admin']

export interface OperatorsTable {
  id: Generated<number>
  /** Lower case. */
  email: string
  role: OperatorRole
  /** `scrypt$N$r$p$salt$hash` (password-hash.ts); never leaves the service. */
  password_hash: string
  /** Base32 TOTP seed, pending until `totp_enrolled_at`; never leaves the service after enrolment. */
  totp_secret: string | null
  totp_enrolled_at: string | null
  /** The last TOTP time step accepted: a code is good once. */
  totp_last_step: number | null
  disabled_at: string | null
  created_at: string
  password_changed_at: string
  /** Generated at creation or by a reset: to be replaced at the next sign-in (README, Operator console). */
  password_one_time: Generated<SqlBool>
}

export interface OperatorSessionsTable {
  /** SHA-256 (hex) of the cookie's token. */
  id: string
  operator_id: number
  /** `password`: the password was right, the TOTP code is awaited; `done`: signed in. */
  stage: 'password' | 'done'
  totp_failures: Generated<number>
  created_at: string
  last_seen_at: string
  /** The absolute end (12 h after sign-in), whatever the activity. */
  expires_at: string
  ip: string | null
  user_agent: string | null
}

export interface AuditLogTable {
  id: Generated<number>
  at: string
  /** The operator; null for the CLI. */
  actor: number | null
  /** The operator's e-mail, or `cli:<os user>`. */
  actor_label: string
  action: string
  record_type: string
  record_id: string
  /** JSON text, null when the record did not exist before (or no longer after). */
  before: string | null
  after: string | null
  ip: string | null
}
