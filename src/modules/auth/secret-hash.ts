import { createHash, randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

// scrypt with a per-secret salt; parameters are stored with the hash so they can be raised later.
// Read at each hash: the test suite lowers them (test/helpers/hash-cost.ts), and any process still
// verifies what it hashed, with the parameters stored beside it.
export const SECRET_HASH_PARAMS = { N: 16384, r: 8, p: 1 }
const KEY_LENGTH = 32

function derive(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_LENGTH, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  )
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16)
  const { N, r, p } = SECRET_HASH_PARAMS
  const key = await derive(secret, salt, { N, r, p })
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !key) return false
  const expected = Buffer.from(key, 'base64url')
  const actual = await derive(secret, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  })
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

/**
 * A short, one-way tag of a stored hash, carried in a user's tokens: it changes with every new
 * password (each hash has its own salt) and tells nothing about the hash or the password.
 */
export function passwordVersion(storedHash: string): string {
  return createHash('sha256').update(storedHash).digest('base64url').slice(0, 16)
}

/**
 * Verified against when the client id or email is unknown, so that a wrong id costs the same
 * time as a wrong secret and the response time reveals nothing.
 */
export const UNKNOWN_SECRET_HASH = await hashSecret(randomBytes(16).toString('hex'))
