import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

/**
 * Operator passwords, hashed with scrypt (memory-hard, built into Node: docs/decisions.md, Operator
 * passwords). Stored self-describing, `scrypt$N$r$p$salt$hash` (base64url), so parameters can be
 * raised later without breaking stored hashes.
 */
const N = 2 ** 15
const R = 8
const P = 1
/** Read at each hash; the test suite lowers them (test/helpers/hash-cost.ts), as for partner secrets. */
export const PASSWORD_HASH_PARAMS = { N, r: R, p: P }
const KEY_LENGTH = 32
// 128 × N × r = 32 MiB a hash; Node's default cap (32 MiB) is exactly that, so raise it.
const maxmemFor = (n: number, r: number) => 128 * n * r + 16 * 1024 * 1024

function derive(password: string, salt: Buffer, n: number, r: number, p: number, length: number) {
  const options: ScryptOptions = { N: n, r, p, maxmem: maxmemFor(n, r) }
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  )
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const { N: n, r, p } = PASSWORD_HASH_PARAMS
  const key = await derive(password, salt, n, r, p, KEY_LENGTH)
  return ['scrypt', n, r, p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** False for a wrong password or a hash this service cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false
  // Parameters come from our own table; still, bound them so a bad row cannot exhaust memory.
  const [cost, blockSize, parallel] = [Number(n), Number(r), Number(p)]
  if (!(cost <= 2 ** 20 && blockSize <= 32 && parallel <= 16)) return false
  const expected = Buffer.from(hash, 'base64url')
  const key = await derive(
    password,
    Buffer.from(salt, 'base64url'),
    cost,
    blockSize,
    parallel,
    expected.length,
  )
  return timingSafeEqual(key, expected)
}

/** A hash no password matches, checked for unknown e-mails so they take as long as known ones. */
export const DUMMY_HASH = `scrypt$${N}$${R}$${P}$${'A'.repeat(22)}$${'A'.repeat(43)}`

/** A one-time password: 20 characters of an unambiguous alphabet (≈ 100 bits). */
export function generatePassword(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'
  const bytes = randomBytes(20)
  // 256 is not a multiple of 55: the slight bias costs under a bit of the 114.
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('')
}
