import { CLAIM_MESSAGES } from './service-messages/claims.js'
import { CONSOLE_MESSAGES } from './service-messages/console.js'
import { CONTRACT_MESSAGES } from './service-messages/contracts.js'
import { PAYMENT_MESSAGES } from './service-messages/payments.js'
import { PLATFORM_MESSAGES } from './service-messages/platform.js'

/**
 * The service's own messages (those thrown with their own wording, not their code's): English as
 * thrown → Portuguese. `{{name}}` stands for a value (a status, a number, a field name) and is
 * carried over as it is; status values stay the API's own (`pago`, `awaiting_payment`).
 * Kept by area in service-messages/, looked up as one.
 */
export const SERVICE_MESSAGES: Record<string, string> = {
  ...CONTRACT_MESSAGES,
  ...CLAIM_MESSAGES,
  ...PAYMENT_MESSAGES,
  ...PLATFORM_MESSAGES,
  ...CONSOLE_MESSAGES,
}
