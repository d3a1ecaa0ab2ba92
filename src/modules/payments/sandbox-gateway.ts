import { randomBytes } from 'node:crypto'
import { cardBrand } from './card.js'
import {
  type CardCharge,
  type CardData,
  type CardVerification,
  type ChargeResult,
  type FirstCharge,
  GatewayRefusedError,
  type PaymentGateway,
} from './payment-gateway.js'

/** CONTRACT §12's test cards; any other Luhn-valid number approves. */
export const SANDBOX_DECLINES: Record<string, string> = {
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
}
/** Approves the first charge and declines every later one: the recurrence's failure path. */
export const APPROVES_ONCE = '4000000000000341'

const random = (prefix: string, bytes = 8) => `${prefix}_${randomBytes(bytes).toString('hex')}`

/**
 * The test environment's gateway. Saved cards (tokens) carry the behaviour of their card, so several
 * worker processes agree without shared memory; a real gateway keeps that on its side.
 */
export class SandboxGateway implements PaymentGateway {
  async createCustomer(_amparoCustomerId: number, _idempotencyKey: string): Promise<string> {
    return random('cus_test')
  }

  async chargeCard(card: CardData, _charge: FirstCharge): Promise<CardCharge> {
    const declineCode = SANDBOX_DECLINES[card.number]
    const result: ChargeResult = declineCode
      ? { approved: false, declineCode, transactionId: random('txn_test') }
      : { approved: true, transactionId: random('txn_test') }
    return { ...saved(card, card.number === APPROVES_ONCE || declineCode !== undefined), result }
  }

  async chargeSaved(saved: { token: string }, _amountCents: number, _key: string): Promise<ChargeResult> {
    if (!saved.token.startsWith('tok_test_'))
      return { approved: false, declineCode: 'invalid_token', transactionId: null }
    return saved.token.startsWith('tok_test_declines_')
      ? { approved: false, declineCode: 'card_declined', transactionId: random('txn_test') }
      : { approved: true, transactionId: random('txn_test') }
  }

  /** Declining cards are refused here too; the approve-once card passes (nothing is charged). */
  async verifyCard(card: CardData, _customerId: string, _key: string): Promise<CardVerification> {
    const declineCode = SANDBOX_DECLINES[card.number]
    if (declineCode) return { approved: false, declineCode }
    return { approved: true, ...saved(card, card.number === APPROVES_ONCE) }
  }

  /** Refunds at once any charge it made. */
  async refund(paymentReference: string, _amountCents: number, _key: string): Promise<string> {
    if (!paymentReference.startsWith('txn_test_'))
      throw new GatewayRefusedError('The sandbox made no such charge')
    return random('re_test')
  }
}

function saved(card: CardData, declinesLater: boolean) {
  const token = random(`tok_test_${declinesLater ? 'declines' : 'approves'}`, 12)
  return { token, brand: cardBrand(card.number), last4: card.number.slice(-4) }
}
