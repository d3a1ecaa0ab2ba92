// Signing in to the portal without a password (README, Portal do segurado): the pure rules.

/** A code is good for 10 minutes and 5 tries. */
export const CODE_TTL_MS = 10 * 60_000
export const MAX_CODE_TRIES = 5
/** At most this many codes an hour per document and per e-mail address. */
export const MAX_CODES_PER_HOUR = 5
export const CODE_WINDOW_MS = 60 * 60_000
/** A portal session ends after 30 minutes without a request, and 12 hours after sign-in. */
export const PORTAL_IDLE_MS = 30 * 60_000
export const PORTAL_ABSOLUTE_MS = 12 * 60 * 60_000
export const PORTAL_TOUCH_EVERY_MS = 60_000

/** Six digits, spaces and dashes typed between them ignored; null for anything else. */
export function readCode(input: string): string | null {
  const bare = input.replace(/[\s-]/g, '')
  return /^\d{6}$/.test(bare) ? bare : null
}

/** `ana.souza@example.com` → `a***@e***.com`: enough to recognise one's own address, not to learn another's. */
export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@')
  const dot = domain.lastIndexOf('.')
  const host = dot > 0 ? domain.slice(0, dot) : domain
  const tld = dot > 0 ? domain.slice(dot) : ''
  return `${local.slice(0, 1)}***@${host.slice(0, 1)}***${tld}`
}

const PLAUSIBLE_DOMAINS = [
  'gmail.com',
  'hotmail.com',
  'outlook.com',
  'yahoo.com.br',
  'uol.com.br',
  'icloud.com',
]
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'

/** A made-up masked address from random bytes (a document nobody holds: sign-in-code.ts). */
export function maskFromDigest(digest: Uint8Array): string {
  const letter = LETTERS[(digest[0] ?? 0) % LETTERS.length]
  const domain = PLAUSIBLE_DOMAINS[(digest[1] ?? 0) % PLAUSIBLE_DOMAINS.length] ?? 'gmail.com'
  return maskEmail(`${letter}@${domain}`)
}

export interface CodeFacts {
  expires_at: string
  tries: number
  used_at: string | null
}

/** Whether a code may still be tried at `now`. */
export function codeUsable(code: CodeFacts, now: Date): boolean {
  return code.used_at === null && code.tries < MAX_CODE_TRIES && now.getTime() < Date.parse(code.expires_at)
}

/** Whether another code may be sent, given how many were sent in the last hour. */
export const codeLimitReached = (sentInTheHour: number): boolean => sentInTheHour >= MAX_CODES_PER_HOUR

/** Seconds until the oldest code of the window leaves it: when asking again can succeed. */
export function retryAfterSeconds(oldestInWindow: string, now: Date): number {
  return Math.max(1, Math.ceil((Date.parse(oldestInWindow) + CODE_WINDOW_MS - now.getTime()) / 1000))
}

export function portalSessionLive(session: { last_seen_at: string; expires_at: string }, now: Date): boolean {
  const t = now.getTime()
  return t - Date.parse(session.last_seen_at) < PORTAL_IDLE_MS && t < Date.parse(session.expires_at)
}
