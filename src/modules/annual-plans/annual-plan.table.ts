import type { Generated, SqlBool } from 'kysely'

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
  status: AnnualPlanStatus
  /** External partners say how the customer paid them; null for own-gateway plans. */
  payment_method: PaymentMethod | null
  payment_installments: number | null
  card_brand: string | null
  card_last4: string | null
  policy_number: string | null
  paid_at: string | null
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
