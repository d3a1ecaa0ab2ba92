/**
 * Premiums written and collected per UTC month, partner and plan (README, Operator console: the operator API behind the screens):
 * kept by database triggers on subscriptions, annual plans and the payments ledger (migration 0018).
 */
export interface PremiumMonthsTable {
  /** `YYYY-MM`, UTC. */
  month: string
  partner_id: number
  /** The contract's plan; 0 for ledger rows of no contract. */
  plan_id: number
  /** Cents: contracted that month, in full. */
  written: number
  /** Cents: approved and recorded payments that month, minus refunds paid. */
  collected: number
}
