import { randomBytes } from 'node:crypto'
import { cardBrand } from './card.js'
import type { CardCharge, CardData, ChargeResult, PaymentGateway } from './payment-gateway.js'

/** CONTRACT §12's test cards; any other Luhn-valid number approves. */
const DECLINES: Record<string, string> = {
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
}
/** Approves the first charge and declines every later one: the recurrence's failure path. */
const APPROVES_ONCE = '4000000000000341'

const transactionId = () => `txn_test_${randomBytes(8).toString('hex')}`

/**
 * The test environment's gateway. Tokens carry the behaviour of their card (so several worker
 * processes agree without shared memory); a real gateway would keep that on its side.
 */
export class SandboxGateway implements PaymentGateway {
  async chargeCard(card: CardData, _amountCents: number, _reference: string): Promise<CardCharge> {
    const declineCode = DECLINES[card.number]
    const later = card.number === APPROVES_ONCE || declineCode ? 'declines' : 'approves'
    const token = `tok_test_${later}_${randomBytes(12).toString('hex')}`
    const result: ChargeResult = declineCode
      ? { approved: false, declineCode, transactionId: transactionId() }
      : { approved: true, transactionId: transactionId() }
    return { token, brand: cardBrand(card.number), last4: card.number.slice(-4), result }
  }

  async chargeToken(token: string, _amountCents: number, _reference: string): Promise<ChargeResult> {
    if (!token.startsWith('tok_test_'))
      return { approved: false, declineCode: 'invalid_token', transactionId: null }
    return token.startsWith('tok_test_declines_')
      ? { approved: false, declineCode: 'card_declined', transactionId: transactionId() }
      : { approved: true, transactionId: transactionId() }
  }
}
