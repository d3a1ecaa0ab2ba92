import { randomBytes } from 'node:crypto'

// RFC 4648 base32 without padding: uppercase letters and 2–7, easy to type from paper.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/**
 * A certificate's verification code: 20 random bytes (160 bits) in base32, 32 characters. Printed
 * on the certificate and looked up by `GET /certificates/{code}`, so it must not be guessable.
 */
export function verificationCode(): string {
  const bytes = randomBytes(20)
  let bits = 0
  let value = 0
  let out = ''
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
    value &= (1 << bits) - 1
  }
  return out
}

/** The code as typed by a reader: case, spaces and dashes ignored; null when it cannot be one. */
export function normalizeVerificationCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '')
  return /^[A-Z2-7]{32}$/.test(code) ? code : null
}
