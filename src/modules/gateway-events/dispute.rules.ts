import type { DisputeStatus } from '../../db/tables/payment-code.js'

/** Stripe's dispute reasons Amparo labels; any other is kept as `general`. */
export const DISPUTE_REASONS = [
  'bank_cannot_process',
  'credit_not_processed',
  'customer_initiated',
  'debit_not_authorized',
  'duplicate',
  'fraudulent',
  'general',
  'incorrect_account_details',
  'insufficient_funds',
  'product_not_received',
  'product_unacceptable',
  'subscription_canceled',
  'unrecognized',
] as const
export type DisputeReason = (typeof DISPUTE_REASONS)[number]

export const reasonOf = (reason: unknown): DisputeReason =>
  DISPUTE_REASONS.includes(reason as DisputeReason) ? (reason as DisputeReason) : 'general'

/**
 * The status a dispute event leaves, or null when it changes nothing. `created` opens it
 * (`disputed`); `closed` writes Stripe's outcome (`won`, or `warning_closed`: an inquiry that never
 * became a chargeback; anything else is `lost`). A closed dispute stays closed, so a `created`
 * arriving after its `closed` is harmless.
 */
export function disputeStatusAfter(
  current: DisputeStatus | undefined,
  type: 'charge.dispute.created' | 'charge.dispute.closed',
  stripeStatus: unknown,
): DisputeStatus | null {
  if (current === 'won' || current === 'lost') return null
  if (type === 'charge.dispute.created') return current === undefined ? 'disputed' : null
  return stripeStatus === 'won' || stripeStatus === 'warning_closed' ? 'won' : 'lost'
}
