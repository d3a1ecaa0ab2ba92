import type { Generated } from 'kysely'

/** How an installment or annual plan was paid (the resources' `paid_with`). */
export type PaidWith = 'card' | 'pix' | 'boleto' | 'external'
/** A PIX code or boleto the customer pays outside any card flow. */
export type CodeMethod = 'pix' | 'boleto'
/** `expired` is stored once a new code replaces it; before that, the clock says (payment-code.rules.ts). */
export type CodeStatus = 'pending' | 'paid' | 'expired' | 'failed' | 'canceled'

export interface PaymentCodesTable {
  id: Generated<number>
  partner_id: number
  method: CodeMethod
  installment_id: number | null
  annual_plan_id: number | null
  /** Cents. */
  amount: number
  status: CodeStatus
  /** The gateway's PaymentIntent (`pi_…`; the sandbox's `pi_test_…`). */
  gateway_reference: string
  /** PIX: the copia-e-cola text; boleto: its number. */
  code: string
  /** Boleto: the gateway's PDF address; null for PIX. */
  document_url: string | null
  /** Random: the address of the code's QR image on Amparo (`/pix/{token}.png`) needs no token. */
  image_token: string
  expires_at: string
  paid_at: string | null
  created_at: string
  updated_at: string
}

/** A Stripe event applied: its id, kept in the transaction of its effect. */
export interface StripeEventsTable {
  id: string
  type: string
  applied_at: string
}

/** Where a chargeback stands: `disputed` while open, then Stripe's outcome. */
export type DisputeStatus = 'disputed' | 'won' | 'lost'

/** A chargeback Stripe reported, on the ledger row of the charge it disputes. */
export interface PaymentDisputesTable {
  id: Generated<number>
  /** Stripe's `dp_…`. */
  gateway_dispute_id: string
  partner_id: number
  payment_id: number
  /** Cents disputed. */
  amount: number
  /** Stripe's reason (`fraudulent`, `product_not_received`, …). */
  reason: string
  status: DisputeStatus
  /** Stripe's `evidence_details.due_by`; null when Stripe gives none. */
  evidence_due_by: string | null
  created_at: string
  updated_at: string
}
