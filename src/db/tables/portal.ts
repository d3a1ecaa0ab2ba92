import type { Generated } from 'kysely'

/** A sign-in code sent to an insured (README, Portal do segurado); also one asked for an unknown document. */
export interface PortalCodesTable {
  id: Generated<number>
  /** Bare CPF/CNPJ as typed. */
  document: string
  /** The address it went to, lower case; empty when the document is nobody's. */
  email: string
  /** `scrypt$…` of the 6 digits (never the code). */
  code_hash: string
  tries: Generated<number>
  created_at: string
  expires_at: string
  used_at: string | null
}

export interface PortalSessionsTable {
  /** SHA-256 (hex) of the cookie's token. */
  id: string
  /** The insured's CPF/CNPJ: the session sees that document's contracts under every partner. */
  document: string
  created_at: string
  last_seen_at: string
  /** The absolute end, whatever the activity. */
  expires_at: string
  ip: string | null
}
