import type { Generated } from 'kysely'

export type PaymentRoute = 'notification' | 'card' | 'recurrence' | 'refund'
/** A refund attempt is `refunded` (the gateway took it) or `failed` (an error; retried later). */
export type PaymentOutcome = 'approved' | 'declined' | 'recorded' | 'refunded' | 'failed'

/** The ledger: one append-only row per charge attempt, payment notification or refund attempt. */
export interface PaymentsTable {
  id: Generated<number>
  partner_id: number
  subscription_id: number | null
  installment_id: number | null
  annual_plan_id: number | null
  amount: number
  route: PaymentRoute
  outcome: PaymentOutcome
  decline_code: string | null
  /** The gateway's reference of the charge (of the refund, for a refund), when there was one. */
  transaction_id: string | null
  created_at: string
}

/** The own gateway's customer of each Amparo customer that paid by card: created once, kept. */
export interface GatewayCustomersTable {
  customer_id: number
  /** Stripe's `cus_…` (the sandbox's `cus_test_…`). */
  gateway_customer_id: string
  created_at: string
}
