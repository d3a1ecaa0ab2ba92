import type { Config } from '../../config.js'
import type { Db } from '../../db/database.js'
import { UnauthenticatedError } from '../../shared/errors.js'
import type { LoginCredentials } from './login-credentials.js'
import type { PartnerContext } from './partner-context.js'
import {
  findActiveClientPartner,
  findActiveUserPartner,
  findCredentialByClientId,
  findUserByEmail,
} from './principal.repository.js'
import { passwordVersion, UNKNOWN_SECRET_HASH, verifySecret } from './secret-hash.js'
import { InvalidTokenError, type IssuedToken, type Subject, type TokenService } from './token.service.js'

// What other modules use of a partner's credentials: the rules a login's e-mail and password
// follow, and the hash a secret is kept as.
export { assertLoginAccepts } from './login-credentials.js'
export { hashSecret } from './secret-hash.js'

/** The partner a token speaks for, and how far its sandbox clock is ahead of real time. */
export type Principal = PartnerContext & { clockOffsetSeconds: number }

// `.amparo` is no public top-level domain: no real partner user can have an e-mail there.
export const DEMO_EMAIL_DOMAIN = '@demo.amparo'

/** The demo's partner users, whose passwords were printed: they never log in in production. */
const isDemoUserEmail = (email: string) => email.toLowerCase().endsWith(DEMO_EMAIL_DOMAIN)

/**
 * Checks the credentials and issues a token. An unknown id, a revoked credential and a wrong
 * secret all cost one hash verification and answer the same 401. In production, credentials a
 * test database may hold (`test_` client ids, the demo's users, whose secrets were printed) are
 * unknown ones (README, Going live): a database first set up in test mode still serves.
 */
export async function login(
  db: Db,
  tokens: TokenService,
  credentials: LoginCredentials,
  env: Config['env'],
): Promise<IssuedToken> {
  const production = env === 'production'
  if (credentials.kind === 'client') {
    const testId = production && credentials.clientId.startsWith('test_')
    const found = testId ? undefined : await findCredentialByClientId(db, credentials.clientId)
    const valid = await verifySecret(credentials.clientSecret, found?.secret_hash ?? UNKNOWN_SECRET_HASH)
    if (!found || !valid || found.revoked_at !== null) throw new UnauthenticatedError()
    return tokens.issue({ kind: 'client', id: found.id }, found.partner_id)
  }
  if (credentials.kind === 'user') {
    const demoUser = production && isDemoUserEmail(credentials.email)
    const found = demoUser ? undefined : await findUserByEmail(db, credentials.email)
    const valid = await verifySecret(credentials.password, found?.password_hash ?? UNKNOWN_SECRET_HASH)
    if (!found || !valid || found.disabled) throw new UnauthenticatedError()
    const subject = {
      kind: 'user',
      id: found.id,
      passwordVersion: passwordVersion(found.password_hash),
    } as const
    return tokens.issue(subject, found.partner_id)
  }
  await verifySecret('', UNKNOWN_SECRET_HASH)
  throw new UnauthenticatedError()
}

/**
 * The partner behind a token's subject, or undefined when the credential was revoked, or the user
 * disabled or given a new password since the token: checked on every request, so each takes
 * effect at once.
 */
async function findActivePrincipal(db: Db, subject: Subject): Promise<Principal | undefined> {
  if (subject.kind === 'client') return findActiveClientPartner(db, subject.id)
  const row = await findActiveUserPartner(db, subject.id)
  if (!row || subject.passwordVersion !== passwordVersion(row.passwordHash)) return undefined
  const { passwordHash: _, ...partner } = row
  return partner
}

/**
 * The partner a bearer token speaks for: the token must be genuine and current, and its credential
 * (or user) still active, looked up on every request so a revocation takes effect at once.
 */
export async function authenticate(db: Db, tokens: TokenService, token: string): Promise<Principal> {
  try {
    const { subject, partnerId } = await tokens.verify(token)
    const partner = await findActivePrincipal(db, subject)
    if (!partner || partner.partnerId !== partnerId) throw new UnauthenticatedError()
    return partner
  } catch (error) {
    if (error instanceof InvalidTokenError) throw new UnauthenticatedError()
    throw error
  }
}
