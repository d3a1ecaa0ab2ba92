import type { Db } from '../../db/database.js'
import { UnauthenticatedError } from '../../shared/errors.js'
import type { LoginCredentials } from './login-credentials.js'
import { findCredentialByClientId, findUserByEmail } from './principal.repository.js'
import { passwordVersion, UNKNOWN_SECRET_HASH, verifySecret } from './secret-hash.js'
import type { IssuedToken, TokenService } from './token.service.js'

/**
 * Checks the credentials and issues a token. An unknown id, a revoked credential and a wrong
 * secret all cost one hash verification and answer the same 401.
 */
export async function login(
  db: Db,
  tokens: TokenService,
  credentials: LoginCredentials,
): Promise<IssuedToken> {
  if (credentials.kind === 'client') {
    const found = await findCredentialByClientId(db, credentials.clientId)
    const valid = await verifySecret(credentials.clientSecret, found?.secret_hash ?? UNKNOWN_SECRET_HASH)
    if (!found || !valid || found.revoked_at !== null) throw new UnauthenticatedError()
    return tokens.issue({ kind: 'client', id: found.id }, found.partner_id)
  }
  if (credentials.kind === 'user') {
    const found = await findUserByEmail(db, credentials.email)
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
