/**
 * Premiums written and collected per UTC hour, partner and plan (README, Operator console: the
 * operator API behind the screens): kept by database triggers on subscriptions, annual plans and
 * the payments ledger (migration 0030), so that a month in the service's zone is a range of hours.
 */
export interface PremiumHoursTable {
  /** `YYYY-MM-DDTHH`, UTC. */
  hour: string
  partner_id: number
  /** The contract's plan; 0 for ledger rows of no contract. */
  plan_id: number
  /** Cents: contracted that hour, in full. */
  written: number
  /** Cents: approved and recorded payments that hour, minus refunds paid. */
  collected: number
}
