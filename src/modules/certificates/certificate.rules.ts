import type { AnnualPlanStatus } from '../../db/tables/annual-plan.js'
import type { SubscriptionStatus } from '../../db/tables/subscription.js'
import { formatDate } from '../../shared/time.js'
import { statusAt as annualPlanStatusAt } from '../annual-plans/annual-plan.rules.js'
import { coverageEndsAt, statusAt as subscriptionStatusAt } from '../subscriptions/subscription.rules.js'

// The certificate's pure rules (README, Certificates): which contract is in force, how the
// insured's document is masked, how money and dates read in Portuguese, how its verification code
// is written.

/** A subscription's status at `now` as its resource shows it (an expiry recorded or due). */
export function subscriptionStatus(
  row: { status: SubscriptionStatus; ends_on: string },
  now: string,
  timeZone: string,
): SubscriptionStatus {
  return subscriptionStatusAt(row, now, timeZone)
}

/** An annual plan's status at `now`. */
export function annualPlanStatus(
  row: { status: AnnualPlanStatus; starts_at: string | null; ends_at: string | null },
  now: string,
): AnnualPlanStatus {
  return annualPlanStatusAt(row, now)
}

/** In force: a subscription `pago` (not expired), an annual plan `paid` or `protected`. */
export function inForce(status: string): boolean {
  return status === 'pago' || status === 'paid' || status === 'protected'
}

/** A subscription's coverage: from the payment of installment 1 to 00:00 of its end day. */
export function subscriptionTerm(firstPaidAt: string | null, endsOn: string, timeZone: string) {
  return { startsAt: firstPaidAt, endsAt: coverageEndsAt(endsOn, timeZone) }
}

/**
 * The insured's document with only its middle shown: CPF `***.982.247-**`, CNPJ
 * `**.345.678/0001-**` (alphanumeric CNPJs alike). Anything else is masked whole.
 */
export function maskDocument(document: string, kind: 'cpf' | 'cnpj'): string {
  if (kind === 'cpf' && document.length === 11)
    return `***.${document.slice(3, 6)}.${document.slice(6, 9)}-**`
  if (kind === 'cnpj' && document.length === 14) {
    return `**.${document.slice(2, 5)}.${document.slice(5, 8)}/${document.slice(8, 12)}-**`
  }
  return '*'.repeat(document.length)
}

/** Cents as Brazilian reais: `R$ 4.500,00`. */
export function formatReais(cents: number): string {
  const whole = Math.floor(Math.abs(cents) / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.')
  const fraction = String(Math.abs(cents) % 100).padStart(2, '0')
  return `${cents < 0 ? '-' : ''}R$ ${whole},${fraction}`
}

/** An instant as a Brazilian date in the service zone: `21/11/2026`. */
export function formatDateBr(instant: string, timeZone: string): string {
  const [year, month, day] = formatDate(instant, timeZone).split('-')
  return `${day}/${month}/${year}`
}

/**
 * What a contract shows of its certificate (README, Certificates): the PDF's address and the
 * verification code printed on it, so that a partner can send the code without reading the PDF.
 * Null unless the contract is in force (the certificate is refused then).
 */
export function certificateLinks(contractPath: string, code: string | null, status: string, base: string) {
  if (code === null || !inForce(status)) return null
  return {
    url: `${base}${contractPath}/certificate`,
    verification_code: code,
    verification_url: `${base}/certificates/${code}`,
  }
}

// The verification code.

// RFC 4648 base32 without padding: uppercase letters and 2–7, easy to type from paper.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/**
 * A certificate's verification code: 20 random bytes (160 bits) in base32, 32 characters. Printed
 * on the certificate and looked up by `GET /certificates/{code}`, so it must not be guessable: the
 * caller passes `node:crypto`'s `randomBytes`.
 */
export function verificationCode(random: (size: number) => Uint8Array): string {
  const bytes = random(20)
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
