import { createSecretKey, type KeyObject, randomBytes } from 'node:crypto'
import { errors, jwtVerify, SignJWT } from 'jose'
import type { Config } from '../../config.js'
import type { SigningKey } from '../../config-values.js'
import type { Db, Reader } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'
import { retryingTransaction } from '../../db/transaction.js'
import { UnauthenticatedError } from '../../shared/errors.js'
import type { Clock } from '../../shared/time.js'
import type { LoginCredentials } from './login-credentials.js'
import type { PartnerContext } from './partner-context.js'
import { passwordVersion, UNKNOWN_SECRET_HASH, verifySecret } from './secret-hash.js'
import { keepGeneratedKey, signingKeys } from './signing-key.repository.js'

// A partner's authentication: login checks its credentials and issues a token (Tokens, below);
// authenticate verifies one on every request and finds the partner it still speaks for.

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

// The partner behind a credential or a user, looked up on every authenticated request.

const partnerColumns = [
  'partners.id as partnerId',
  'partners.gateway as gateway',
  'partners.lmi_min_factor_bp as lmiMinFactorBp',
  'partners.lmi_max_factor_bp as lmiMaxFactorBp',
  // The sandbox clock (docs/decisions.md, Sandbox test clock) rides on this lookup: no query of its own per request.
  'partners.clock_offset_seconds as clockOffsetSeconds',
] as const

// Run on every authenticated request, so built and compiled once (see prepared()).
const activeClient = prepared((db: Reader, credentialId: number) =>
  db
    .selectFrom('credentials')
    .innerJoin('partners', 'partners.id', 'credentials.partner_id')
    .select(partnerColumns)
    .where('credentials.id', '=', credentialId)
    .where('credentials.revoked_at', 'is', null),
)
const activeUser = prepared((db: Reader, userId: number) =>
  db
    .selectFrom('partner_users')
    .innerJoin('partners', 'partners.id', 'partner_users.partner_id')
    .select([...partnerColumns, 'partner_users.password_hash as passwordHash'])
    .where('partner_users.id', '=', userId)
    .where('partner_users.disabled', '=', false),
)

/** The partner of a credential that is not revoked, with its sandbox clock offset. */
async function findActiveClientPartner(db: Reader, credentialId: number) {
  return (await activeClient(db, credentialId))[0]
}

/** The partner of a user that is not disabled, with the user's password hash. */
async function findActiveUserPartner(db: Reader, userId: number) {
  return (await activeUser(db, userId))[0]
}

async function findCredentialByClientId(db: Reader, clientId: string) {
  return db
    .selectFrom('credentials')
    .select(['id', 'partner_id', 'secret_hash', 'revoked_at'])
    .where('client_id', '=', clientId)
    .executeTakeFirst()
}

async function findUserByEmail(db: Reader, email: string) {
  return db
    .selectFrom('partner_users')
    .select(['id', 'partner_id', 'password_hash', 'disabled'])
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst()
}

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

// — Tokens —

const ALGORITHM = 'HS256'

/**
 * Who a token speaks for. A user's carries the version of the password it logged in with
 * (`passwordVersion`): a new password ends the tokens of the old one.
 */
export type Subject = { kind: 'client' | 'user'; id: number; passwordVersion?: string }

export interface IssuedToken {
  token: string
  expiresAt: Date
}

export class InvalidTokenError extends Error {}

export interface VerifiedToken {
  subject: Subject
  partnerId: number
}

// Verifying the signature is the most expensive step of an authenticated request, and a partner
// sends the same token for its whole life: each verified token is kept (with its expiry, checked
// on every hit) in a bounded map, emptied when full. Revocation is unaffected: it is decided by
// the principal lookup, which still runs on every request.
const VERIFIED_CACHE_SIZE = 10_000

/**
 * HS256 JWTs with a `kid`: the first key signs, every listed key verifies, so keys can rotate.
 * The audience names the environment (`amparo:test`, `amparo:production`): subjects are database
 * ids, so a test token verified by a production deployment sharing its keys would otherwise act
 * as whichever production partner has the same ids.
 */
export class TokenService {
  // KeyObjects built once: given raw bytes, jose would import a key on every verification.
  private readonly secrets: Map<string, KeyObject>
  private readonly signing: SigningKey
  private readonly verified = new Map<string, VerifiedToken & { expiresAtMs: number }>()

  constructor(
    keys: SigningKey[],
    private readonly ttlSeconds: number,
    private readonly clock: Clock,
    private readonly audience: string,
  ) {
    const [first] = keys
    if (!first) throw new Error('At least one signing key is required')
    this.signing = first
    this.secrets = new Map(keys.map((k) => [k.kid, createSecretKey(Buffer.from(k.secret, 'utf8'))]))
  }

  async issue(subject: Subject, partnerId: number): Promise<IssuedToken> {
    const issuedAt = Math.floor(this.clock.now().getTime() / 1000)
    const expiresAt = issuedAt + this.ttlSeconds
    const claims =
      subject.passwordVersion === undefined
        ? { pid: partnerId }
        : { pid: partnerId, pwv: subject.passwordVersion }
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM, kid: this.signing.kid, typ: 'JWT' })
      .setSubject(`${subject.kind}:${subject.id}`)
      .setAudience(this.audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.secrets.get(this.signing.kid) as KeyObject)
    return { token, expiresAt: new Date(expiresAt * 1000) }
  }

  /** The token's subject and partner; throws InvalidTokenError for anything not genuine and current. */
  async verify(token: string): Promise<VerifiedToken> {
    const known = this.verified.get(token)
    // jose rejects a token whose exp is at or before now; so does the cache.
    if (known && known.expiresAtMs > this.clock.now().getTime()) {
      return { subject: known.subject, partnerId: known.partnerId }
    }
    if (known) this.verified.delete(token)
    const verified = await this.verifySignature(token)
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.clear()
    this.verified.set(token, verified)
    return { subject: verified.subject, partnerId: verified.partnerId }
  }

  private async verifySignature(token: string): Promise<VerifiedToken & { expiresAtMs: number }> {
    try {
      const { payload } = await jwtVerify(
        token,
        (header) => {
          const secret = header.kid === undefined ? undefined : this.secrets.get(header.kid)
          if (!secret) throw new InvalidTokenError('unknown kid')
          return secret
        },
        {
          algorithms: [ALGORITHM],
          audience: this.audience,
          requiredClaims: ['exp', 'iat', 'sub'],
          currentDate: this.clock.now(),
        },
      )
      const match = /^(client|user):(\d{1,15})$/.exec(String(payload.sub))
      if (!match || !Number.isSafeInteger(payload.pid)) throw new InvalidTokenError('malformed claims')
      const kind = match[1] as Subject['kind']
      const version = typeof payload.pwv === 'string' ? { passwordVersion: payload.pwv } : {}
      return {
        subject: { kind, id: Number(match[2]), ...version },
        partnerId: payload.pid as number,
        expiresAtMs: (payload.exp as number) * 1000,
      }
    } catch (error) {
      if (error instanceof InvalidTokenError || error instanceof errors.JOSEError) {
        throw new InvalidTokenError(error.message)
      }
      throw error
    }
  }
}

/** The token audience of a deployment: its environment. */
export const tokenAudience = (env: Config['env']) => `amparo:${env}`

/**
 * The configured keys, or else (test environment only; production requires AMPARO_JWT_KEYS) a
 * key generated once and kept in the database, so that every process of one deployment shares it.
 */
export async function loadSigningKeys(db: Db, config: Config, clock: Clock): Promise<SigningKey[]> {
  if (config.jwtKeys.length > 0) return config.jwtKeys
  const secret = randomBytes(32).toString('base64url')
  const at = clock.now().toISOString()
  await retryingTransaction(db, (trx) => keepGeneratedKey(trx, secret, at))
  return signingKeys(db)
}
