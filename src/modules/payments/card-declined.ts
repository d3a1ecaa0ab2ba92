import { AppError } from '../../shared/errors.js'

const DECLINE_MESSAGES: Record<string, string> = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'The card has insufficient funds.',
  expired_card: 'The card has expired.',
}

/**
 * The own gateway refused the card: 402 with `errors.creditCard` and `decline_code` (CONTRACT §2),
 * for subscriptions and annual plans alike, so that one handler of a partner reads both. (Annual
 * plans send the card as `card_number` …; their 422s name those fields, but a decline is not a
 * field's fault.)
 */
export class CardDeclinedError extends AppError {
  constructor(declineCode: string) {
    const message = DECLINE_MESSAGES[declineCode] ?? 'The card was declined.'
    super(402, message, { creditCard: [message] }, { decline_code: declineCode })
  }
}
