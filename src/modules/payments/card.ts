import type { ErrorAnswer } from '../../http/error-responses.js'
import { normalizeCardNumber } from '../../shared/documents.js'
import { AppError, ValidationError } from '../../shared/errors.js'
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

/** The card brand from the number's prefix (IIN ranges), for display next to the last four digits. */
export function cardBrand(number: string): string {
  if (/^4/.test(number)) return 'visa'
  if (/^(5[1-5]|2(2[2-9][1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720))/.test(number)) return 'mastercard'
  if (/^3[47]/.test(number)) return 'amex'
  if (/^(4011|4312|4389|4514|4576|5041|5066|5067|509|6277|6362|6363|650|6516|6550)/.test(number)) return 'elo'
  if (/^(606282|3841)/.test(number)) return 'hipercard'
  return 'other'
}

/**
 * The card of a request, or a 422 naming each bad field by the request's own names (`fields`):
 * subscriptions send `creditCard.number`, annual plans `card_number`.
 */
export function requireCard(
  input: CardInput,
  today: string,
  expiryShape: ExpiryShape,
  fields: Record<'number' | 'expiry' | 'cvv', string>,
): CardData {
  const check = checkCard(input, today, expiryShape)
  if (check.ok) return check.card
  const errors = Object.entries(check.errors).map(([key, message]) => [
    fields[key as keyof typeof fields],
    [message],
  ])
  throw new ValidationError(Object.fromEntries(errors))
}

const DECLINE_MESSAGES: Record<string, string> = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'The card has insufficient funds.',
  expired_card: 'The card has expired.',
}

/**
 * The own gateway refused the card: 402 with `errors.creditCard` and `decline_code` (README, "Subscriptions"),
 * for subscriptions and annual plans alike, so that one handler of a partner reads both. (Annual
 * plans send the card as `card_number` …; their 422s name those fields, but a decline is not a
 * field's fault.)
 */
export class CardDeclinedError extends AppError {
  constructor(declineCode: string) {
    const message = DECLINE_MESSAGES[declineCode] ?? 'The card was declined.'
    super('card_declined', message, { creditCard: [message] }, { decline_code: declineCode })
  }
}

/** What every card-paying operation's OpenAPI description says about the gateway's failures. */
export const CARD_CALL_FAILURES = `Card testing: past 5 declined card attempts a day on one contract (payments and card
updates; \`AMPARO_CARD_DECLINES_PER_CONTRACT\`), or the partner's daily limit
(\`AMPARO_CARD_DECLINES_PER_PARTNER\`) → 429 \`rate_limited\` with \`Retry-After\`, before the gateway is
called. A gateway that does not answer (timeout, its own fault or rate limit) → 503 \`service_unavailable\`
with \`Retry-After\` of at most 5 s: retry then (with or without the same \`Idempotency-Key\`); the retry
goes to the gateway at once with the same gateway idempotency key, so it settles the same charge and
never makes a second one. While another call of the same payment is at the gateway → 409
\`payment_in_progress\` with \`Retry-After\`: the seconds until that call's claim runs out, or fewer
while the gateway is still answering it. The gateway refusing our request as malformed (a bug or a
misconfiguration on our side, never the caller's) → 502 \`gateway_error\`: nothing was charged; quote
\`request_id\` to support.`

/** The error answers of every card-paying operation, those CARD_CALL_FAILURES describes among them. */
export const CARD_CALL_ERRORS: ErrorAnswer[] = [
  400,
  401,
  402,
  404,
  413,
  415,
  422,
  'invalid_state',
  'wrong_gateway',
  'rate_limited',
  'gateway_error',
]
