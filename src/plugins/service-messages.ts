import { CLAIM_MESSAGES } from './service-messages/claims.js'
import { CONSOLE_MESSAGES } from './service-messages/console.js'
import { CONTRACT_MESSAGES } from './service-messages/contracts.js'
import { PAYMENT_MESSAGES } from './service-messages/payments.js'
import { PLATFORM_MESSAGES } from './service-messages/platform.js'

/**
 * The service's own messages (those thrown with their own wording, not their code's): English as
 * thrown → Portuguese. `{{name}}` stands for a value (a number, a field name) and is carried over
 * as it is; `{{name:table}}` for a code or English wording shown through its Portuguese label
 * (messages.ts, WORDS), so a person never reads `pago` or `under review` in a Portuguese message.
 * Kept by area in service-messages/, looked up as one.
 */
export const SERVICE_MESSAGES: Record<string, string> = {
  ...CONTRACT_MESSAGES,
  ...CLAIM_MESSAGES,
  ...PAYMENT_MESSAGES,
  ...PLATFORM_MESSAGES,
  ...CONSOLE_MESSAGES,
}
