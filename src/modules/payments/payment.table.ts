import type { Generated } from 'kysely'

export type PaymentRoute = 'notification' | 'card' | 'recurrence'
export type PaymentOutcome = 'approved' | 'declined' | 'recorded'

/** The ledger: one append-only row per charge attempt or payment notification. */
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
  /** The gateway's reference of the charge, when there was one. */
  transaction_id: string | null
  created_at: string
}
