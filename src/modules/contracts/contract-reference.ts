// A contract is a subscription or an annual plan (README, "Subscriptions" and "Annual plans"):
// what names one, whichever product it is.

/** Subscription N or annual plan N; whose it is travels beside it (a partner id). */
export type ContractRef = { subscriptionId: number } | { annualPlanId: number }

export type ContractKind = 'subscription' | 'annual_plan'

export const contractKind = (ref: ContractRef): ContractKind =>
  'subscriptionId' in ref ? 'subscription' : 'annual_plan'

export const contractId = (ref: ContractRef): number =>
  'subscriptionId' in ref ? ref.subscriptionId : ref.annualPlanId

/** The reference a row's two contract columns name (exactly one of them is set). */
export function contractOfColumns(row: {
  subscription_id: number | null
  annual_plan_id: number | null
}): ContractRef {
  if (row.subscription_id !== null) return { subscriptionId: row.subscription_id }
  if (row.annual_plan_id !== null) return { annualPlanId: row.annual_plan_id }
  throw new Error('a row naming no contract')
}
