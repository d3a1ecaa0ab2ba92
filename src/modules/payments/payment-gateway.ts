/** A card as the partner sent it; lives only for the duration of one charge, never stored or logged. */
export interface CardData {
  number: string
  expiryMonth: number
  /** Four digits. */
  expiryYear: number
  cvv: string
  holder?: string
}

export type ChargeResult =
  | { approved: true; transactionId: string }
  | { approved: false; declineCode: string; transactionId: string | null }

export interface CardCharge {
  /** What the recurrence charges later instead of the card. */
  token: string
  brand: string
  last4: string
  result: ChargeResult
}

/**
 * The own payment gateway: charge a card once (getting a token back), or charge a token later.
 * What an adapter for a real gateway must guarantee, because the callers hold their installment or
 * plan only for a while (a claim of 60 s to 5 min) and a retry after that charges again: each call
 * settles or fails within 30 s (abort it, never leave it running), and `reference` is sent as the
 * gateway's idempotency key, so a repeat of a charge whose answer was lost is not a second charge.
 * The sandbox answers at once.
 */
export interface PaymentGateway {
  chargeCard(card: CardData, amountCents: number, reference: string): Promise<CardCharge>
  chargeToken(token: string, amountCents: number, reference: string): Promise<ChargeResult>
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
