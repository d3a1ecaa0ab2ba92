import { randomBytes } from 'node:crypto'

// RFC 4648 base32: uppercase letters and 2–7, nothing a reader confuses with 0, 1 or 8.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const LENGTH = 10

/**
 * A cancellation protocol, `CAN-` and 10 random base32 characters (50 bits): read out over the
 * phone by a customer, and not guessable from another one, as a sequence would be.
 */
export function newProtocol(random: (size: number) => Buffer = randomBytes): string {
  const bytes = random(LENGTH)
  let code = ''
  // 256 is a multiple of 32, so the low five bits of each byte are uniform.
  for (const byte of bytes) code += ALPHABET[byte & 31]
  return `CAN-${code}`
}
