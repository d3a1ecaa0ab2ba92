import type { Generated, SqlBool } from 'kysely'
import type { PaidWith } from './payment-code.js'

/**
 * `expired` is stored once the last installment's month has passed (by the worker or the first read
 * that shows it), as an annual plan's `expired` is: subscription.rules.ts `SUBSCRIPTION_FROM`.
 */
export type SubscriptionStatus = 'pending' | 'pago' | 'canceled' | 'expired'
/** Why a subscription was canceled (the `Subscription` schema's `cancellation.reason`). */
export const CANCELLATION_REASONS = [
  'partner_request',
  'first_installment_unpaid',
  'recurrence_failed',
  'claim_settled',
  'insured_withdrawal',
] as const
export type CancellationReason = (typeof CANCELLATION_REASONS)[number]
export type InstallmentStatus = 'pending' | 'paid' | 'refused' | 'canceled'
/** An installment that can still be paid (subscription.rules.ts `isUnpaid`; the queries' condition). */
export const UNPAID_STATUSES = ['pending', 'refused'] as const satisfies InstallmentStatus[]

export interface SubscriptionsTable {
  id: Generated<number>
  partner_id: number
  /**
   * 1, 2, 3… per partner in contracting order (and so in id order), without gaps: the list's
   * pages are ranges of it. Set by insertSubscription from partner_subscription_counts.
   */
  partner_seq: number
  customer_id: number
  plan_id: number
  model_id: number
  store_id: number | null
  serial_number: string | null
  second_serial_number: string | null
  is_used: SqlBool
  /** Cents, fixed at contracting. */
  lmi: number
  monthly_premium: number
  franchise: number
  installments_count: number
  status: SubscriptionStatus
  origin: string | null
  /** Own gateway: what the recurrence charges. Never the card number or security code. */
  card_token: string | null
  card_brand: string | null
  card_last4: string | null
  canceled_at: string | null
  /** Why it was canceled: one of CANCELLATION_REASONS. */
  cancel_reason: CancellationReason | null
  /** The partner's own words when it canceled. */
  cancel_comment: string | null
  /**
   * The day after the last installment's month ('YYYY-MM-DD', service zone): from its 00:00 an
   * active subscription is `expired` (subscription.rules.ts `expiredAt`), and `updated_at` of its
   * expiry is that instant.
   */
  ends_on: string
  /** `AMP-<year>-<number>` from the annual plans' sequence, given when it becomes `pago`; null before. */
  policy_number: string | null
  /** The certificate's verification code (GET /certificates/{code}), set with the policy number. */
  certificate_code: string | null
  created_at: string
  /** Every update of the row sets it (the resource's `updated_at`). */
  updated_at: string
}

/** How many subscriptions each partner has contracted: the last partner_seq it was given. */
export interface PartnerSubscriptionCountsTable {
  partner_id: number
  total: number
}

export interface InstallmentsTable {
  id: Generated<number>
  subscription_id: number
  number: number
  amount: number
  /** 'YYYY-MM-DD' in the service time zone. */
  due_date: string
  status: InstallmentStatus
  paid_at: string | null
  /** How it was paid; null while unpaid. */
  paid_with: PaidWith | null
  /** Declined recurrence charges so far. */
  failed_attempts: number
  /**
   * When the recurrence may charge it next (due date, then the retry schedule); null while nothing
   * will charge it: no card on file yet (set when one is stored), paid, canceled, or collected by
   * the partner.
   */
  next_attempt_on: string | null
  /** The gateway's code of the last declined charge. */
  last_decline_code: string | null
  /** A charge in progress holds the installment until then, so no two charge it at once. */
  locked_until: string | null
  created_at: string
}
