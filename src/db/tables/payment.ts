import type { Generated } from 'kysely'

/** How money moved: a partner's notification, a card at the counter, the recurrence, a refund (the ledger's `route`); a PIX code or boleto paid through the own gateway is `card` there, its `paid_with` says which (docs/decisions.md). */
export type PaymentChannel = 'notification' | 'card' | 'recurrence' | 'refund'
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
  route: PaymentChannel
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

/**
 * A first charge between its gateway call and the record of its outcome: what replaying the call
 * takes (the same idempotency key and parameters, so the gateway answers the same PaymentIntent).
 * Deleted in the transaction that records the outcome; one left behind is reconciled by the worker.
 */
export interface CardAttemptsTable {
  id: Generated<number>
  partner_id: number
  purpose: 'first_installment' | 'annual_plan'
  installment_id: number | null
  annual_plan_id: number | null
  /** The operation's key, without the deployment namespace the adapter adds. */
  idempotency_key: string
  reference: string
  amount: number
  /** The card issuer's installments of an annual plan; 1: at once. */
  installments: number
  gateway_customer_id: string
  /** The gateway's payment method made from the card (Stripe's `pm_…`). */
  payment_method: string
  card_brand: string
  card_last4: string
  created_at: string
  /** The partner's `Idempotency-Key` of the request that made it, and that request's fingerprint. */
  request_key: string | null
  request_fingerprint: string | null
  /** When its outcome was recorded; null while unrecorded. Kept 24 h, as the key's answer. */
  recorded_at: string | null
  /** The card's last four digits and expiry (`4242-122030`): a retry with the same card replays it. */
  card_mark: string | null
}

/** A card verification of a card update, approved or declined. */
export interface CardChecksTable {
  id: Generated<number>
  partner_id: number
  subscription_id: number
  outcome: 'approved' | 'declined'
  decline_code: string | null
  created_at: string
}

/** A card attempt on a contract under way (its gateway call not over): counted by the card-testing limit. */
export interface CardTriesTable {
  id: Generated<number>
  partner_id: number
  subscription_id: number | null
  annual_plan_id: number | null
  created_at: string
}

/** Values the service makes once and keeps (the gateway key namespace). */
export interface SettingsTable {
  name: string
  value: string
}
