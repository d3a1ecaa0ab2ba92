import type { Generated, SqlBool } from 'kysely'
import type { PaidWith } from './payment-code.js'

/**
 * Stored statuses. `protected` and `expired` follow from the coverage clock; the API derives them
 * on every read and the worker persists them (so lists can filter without the clock).
 */
export type AnnualPlanStatus = 'awaiting_payment' | 'paid' | 'protected' | 'expired' | 'canceled'
export type PaymentMethod = 'credit_card' | 'slip' | 'pix'

export interface AnnualPlansTable {
  id: Generated<number>
  partner_id: number
  customer_id: number
  plan_id: number
  model_id: number
  store_id: number | null
  imei: string
  imei_2: string | null
  is_used: SqlBool
  /** Cents. */
  lmi: number
  premium: number
  /** Cents: the plan's franchise rate × LMI, fixed at contracting. */
  franchise: Generated<number>
  status: AnnualPlanStatus
  /** External partners say how the customer paid them; null for own-gateway plans. */
  payment_method: PaymentMethod | null
  payment_installments: number | null
  card_brand: string | null
  card_last4: string | null
  policy_number: string | null
  /** The certificate's verification code (GET /certificates/{code}), set with the policy number. */
  certificate_code: string | null
  paid_at: string | null
  /** How it was paid; null while unpaid. */
  paid_with: PaidWith | null
  /** 00:00 (service time zone) of the day after payment, as a UTC instant. */
  starts_at: string | null
  ends_at: string | null
  /** A card charge in progress holds the plan until then. */
  locked_until: string | null
  created_at: string
  /** Every update of the plan or its cancellation sets it (the resource's `updated_at`). */
  updated_at: string
}

export interface AnnualPlanCancellationsTable {
  id: Generated<number>
  annual_plan_id: number
  protocol: string
  status: 'requested' | 'confirmed'
  reason: string | null
  requested_at: string
  confirmed_at: string | null
  /** Cents; computed at confirmation. */
  refund_amount: number | null
  refund_due_date: string | null
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed'

/** A refund paid through the own gateway: one per confirmed cancellation with a refund above 0. */
export interface AnnualPlanRefundsTable {
  id: Generated<number>
  annual_plan_id: number
  partner_id: number
  /** Cents. */
  amount: number
  /** The gateway's reference of the plan's approved charge (Stripe's PaymentIntent `pi_…`). */
  payment_reference: string
  status: RefundStatus
  /** Gateway calls made so far. */
  attempts: Generated<number>
  /** The worker pays it from then on. */
  next_attempt_at: string
  /** An error after this instant makes it `failed`. */
  give_up_at: string
  /** A worker paying it holds it until then. */
  locked_until: string | null
  /** The last attempt's error, for the operator. */
  last_error: string | null
  gateway_refund_id: string | null
  refunded_at: string | null
  created_at: string
}

/** What a confirmed payment writes on its plan (annual-plan.rules.ts `paymentAt` decides it). */
export interface Payment {
  paidAt: string
  startsAt: string
  endsAt: string
  policyNumber: string
  certificateCode: string
}
