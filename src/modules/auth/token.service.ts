import { createSecretKey, type KeyObject, randomBytes } from 'node:crypto'
import { errors, jwtVerify, SignJWT } from 'jose'
import type { Config } from '../../config.js'
import type { SigningKey } from '../../config-values.js'
import type { Db } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import type { Clock } from '../../shared/time.js'
import { keepGeneratedKey, signingKeys } from './signing-key.repository.js'

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
