import { Secret, TOTP } from 'otpauth'
import QRCode from 'qrcode'

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
