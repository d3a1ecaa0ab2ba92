import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'
import QRCode from 'qrcode'
import { outsideTransaction } from '../../db/transaction.js'

/** RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30 s steps. */
const PERIOD = 30

function totpOf(secret: string, email: string) {
  return new TOTP({
    issuer: 'Amparo',
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  })
}

/** A new 160-bit seed, base32. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32

/** What the enrolment screen shows once: the otpauth:// address and its QR code as SVG. */
export async function enrolment(secret: string, email: string) {
  outsideTransaction('QR rendering')
  const otpauthUrl = totpOf(secret, email).toString()
  const qrSvg = await QRCode.toString(otpauthUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 1 })
  return { otpauthUrl, qrSvg }
}

/**
 * The time step a code is good for at `now` (one step of clock drift either way), or null. The
 * caller accepts each step once.
 */
export function totpStep(secret: string, email: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null
  const timestamp = now.getTime()
  const delta = totpOf(secret, email).validate({ token: code, timestamp, window: 1 })
  return delta === null ? null : Math.floor(timestamp / 1000 / PERIOD) + delta
}

// Seeds at rest (docs/decisions.md, Operator console: sign-in, roles and audit): AES-256-GCM under
// SHA-256 of AMPARO_CONSOLE_SECRET_KEY, bound to the operator's id so a sealed seed cannot be
// copied onto another operator. `v1.` + base64url(iv ‖ tag ‖ ciphertext).
const SEALED = 'v1.'

const keyOf = (secretKey: string) => createHash('sha256').update(secretKey).digest()
const aad = (operatorId: number) => Buffer.from(`operator:${operatorId}`)

export function sealTotpSecret(secret: string, operatorId: number, secretKey: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyOf(secretKey), iv).setAAD(aad(operatorId))
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return SEALED + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')
}

/** A seed stored before seeds were sealed is base32 as is: read as it is (the caller seals it). */
export const isSealed = (stored: string): boolean => stored.startsWith(SEALED)

/** The seed; throws when the key is not the one it was sealed under, or the value was altered. */
export function openTotpSecret(stored: string, operatorId: number, secretKey: string): string {
  if (!isSealed(stored)) return stored
  const bytes = Buffer.from(stored.slice(SEALED.length), 'base64url')
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secretKey), bytes.subarray(0, 12))
  decipher.setAAD(aad(operatorId)).setAuthTag(bytes.subarray(12, 28))
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
}
