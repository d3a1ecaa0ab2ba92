import type { CodeMethod, CodeStatus } from '../../db/tables/payment-code.js'
import { addDays, formatDate, startOfLocalDate } from '../../shared/time.js'

// The pure rules of a PIX code or boleto (README, Going live: PIX and boleto): how long it lasts,
// its status by the clock, and what the gateway's word about its PaymentIntent does to it.
// Instants are UTC ISO strings.

/** A PIX code lasts an hour: long enough to pay at the counter or from home, short enough to redo. */
export const PIX_EXPIRES_AFTER_SECONDS = 3600
/** A boleto may be paid until the end of the third calendar day (service zone) after it is made. */
export const BOLETO_EXPIRES_AFTER_DAYS = 3

/** When a code made at `now` expires: PIX after its seconds, a boleto at the end of its last day. */
export function codeExpiry(method: CodeMethod, now: Date, timeZone: string): string {
  if (method === 'pix') return new Date(now.getTime() + PIX_EXPIRES_AFTER_SECONDS * 1000).toISOString()
  return startOfLocalDate(addDays(formatDate(now, timeZone), BOLETO_EXPIRES_AFTER_DAYS + 1), timeZone)
}

/** A pending code past its expiry reads `expired` (stored so once a new one replaces it). */
export function codeStatusAt(code: { status: CodeStatus; expires_at: string }, now: string): CodeStatus {
  return code.status === 'pending' && code.expires_at <= now ? 'expired' : code.status
}

/**
 * The statuses each status may be reached from. Paid from any: the gateway took the money, even for
 * a code that expired here or failed, so the payment counts. The others only end a pending code.
 */
export const CODE_FROM: Record<Exclude<CodeStatus, 'pending'>, CodeStatus[]> = {
  paid: ['pending', 'expired', 'failed', 'canceled'],
  expired: ['pending'],
  failed: ['pending'],
  canceled: ['pending'],
}

/** What the gateway says of a PaymentIntent: Stripe's `payment_intent.*` events. */
export type IntentOutcome = 'succeeded' | 'payment_failed' | 'canceled'

/** The status a code takes on its PaymentIntent's outcome. */
export function codeStatusOn(outcome: IntentOutcome): Exclude<CodeStatus, 'pending'> {
  if (outcome === 'succeeded') return 'paid'
  return outcome === 'canceled' ? 'canceled' : 'failed'
}
