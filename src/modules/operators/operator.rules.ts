import type { OperatorRole } from '../../db/tables/operator.js'

/** A session ends after 30 minutes without a request, and 12 hours after sign-in whatever happens. */
export const SESSION_IDLE_MS = 30 * 60_000
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60_000
/** Wrong TOTP codes one sign-in may try before its password must be given again. */
export const MAX_TOTP_FAILURES = 5
/** A session's last_seen_at is written at most this often (one write a minute, not one a request). */
export const TOUCH_EVERY_MS = 60_000

const RANK: Record<OperatorRole, number> = { viewer: 0, adjuster: 1, admin: 2 }

/** admin ⊃ adjuster ⊃ viewer. */
export const hasRole = (held: OperatorRole, needed: OperatorRole): boolean => RANK[held] >= RANK[needed]

export function sessionLive(session: { last_seen_at: string; expires_at: string }, now: Date): boolean {
  const t = now.getTime()
  return t - Date.parse(session.last_seen_at) < SESSION_IDLE_MS && t < Date.parse(session.expires_at)
}

/** E-mails are compared without case and outer spaces. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

export const isOperatorRole = (value: string): value is OperatorRole =>
  value === 'admin' || value === 'adjuster' || value === 'viewer'
