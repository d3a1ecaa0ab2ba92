import { createHmac, randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto'
import { maskFromDigest } from './portal-sign-in.rules.js'

// The sign-in code's randomness and hashing (README, Portal do segurado): kept out of the pure rules.

/** Six random digits, leading zeros kept. */
export const newSignInCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0')

// A code lives 10 minutes and allows 5 tries: the hash only keeps a copy of the table from
// signing anyone in meanwhile. scrypt (memory-hard), salted, as the operators' passwords.
const PARAMS = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }

function derive(code: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(code, salt, 32, PARAMS, (error, key) => (error ? reject(error) : resolve(key))),
  )
}

/** `scrypt$<salt>$<hash>` (base64url). */
export async function hashCode(code: string): Promise<string> {
  const salt = randomBytes(16)
  return ['scrypt', salt.toString('base64url'), (await derive(code, salt)).toString('base64url')].join('$')
}

export async function codeMatches(code: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const key = await derive(code, Buffer.from(salt, 'base64url'))
  return key.length === expected.length && timingSafeEqual(key, expected)
}

/**
 * The masked address shown for a document nobody holds: derived from the document under the
 * service's key, so that asking twice shows the same, and it looks like a real one's.
 */
export function unknownDocumentMask(document: string, key: string): string {
  return maskFromDigest(createHmac('sha256', key).update(`portal-mask:${document}`).digest())
}
