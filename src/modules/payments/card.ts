import { normalizeCardNumber } from '../../shared/documents.js'
import type { CardData } from './payment-gateway.js'

export interface CardInput {
  number: string
  /** `MMYY` or `MM/YY`. */
  expiry: string
  cvv: string
  holder?: string
}

/** The expiry shape a route documents: `MMYY` for subscriptions, `MM/YY` for annual plans. */
export type ExpiryShape = 'MMYY' | 'MM/YY'

export type CardCheck =
  | { ok: true; card: CardData }
  | { ok: false; errors: Partial<Record<keyof CardInput, string>> }

const EXPIRY = /^(\d{2})\/?(\d{2})$/

/**
 * Checks a card before it goes to the gateway: Luhn-valid number, a month 01–12 not before
 * `today`'s month (a card is valid through the end of its expiry month), a 3–4 digit code.
 * Errors name the input (`number`, `expiry`, `cvv`); callers prefix them with their field names.
 * Either expiry shape is accepted, but a malformed one is told the shape its route documents
 * (`expiryShape`): naming the other route's would send the partner to a format it was not given.
 */
export function checkCard(input: CardInput, today: string, expiryShape: ExpiryShape): CardCheck {
  const errors: Partial<Record<keyof CardInput, string>> = {}
  const number = normalizeCardNumber(input.number)
  if (!number) errors.number = 'The card number is invalid.'

  const match = EXPIRY.exec(input.expiry.trim())
  const month = Number(match?.[1])
  const year = 2000 + Number(match?.[2])
  if (!match || month < 1 || month > 12) {
    errors.expiry = `The card expiry must be a month and year, ${expiryShape}.`
  } else if (`${year}-${String(month).padStart(2, '0')}` < today.slice(0, 7)) {
    errors.expiry = 'The card has expired.'
  }

  if (!/^\d{3,4}$/.test(input.cvv)) errors.cvv = 'The card security code must be 3 or 4 digits.'

  if (!number || Object.keys(errors).length > 0) return { ok: false, errors }
  const holder = input.holder?.trim()
  return {
    ok: true,
    card: { number, expiryMonth: month, expiryYear: year, cvv: input.cvv, ...(holder && { holder }) },
  }
}
