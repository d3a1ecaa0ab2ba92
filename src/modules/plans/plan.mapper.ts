import type { CoverageType } from '../../db/tables/plan.js'
import { centsToAmount } from '../../shared/money.js'
import type { SubscriptionPlanRow } from './plan.repository.js'
import type { AnnualQuote, SubscriptionQuote } from './quotation.service.js'

export function planResource(plan: SubscriptionPlanRow) {
  return {
    id: plan.id,
    name: plan.name,
    installments: plan.installments,
    coverages: JSON.parse(plan.coverages) as string[],
    coverage_types: JSON.parse(plan.coverage_types) as CoverageType[],
    claim_notice_days: plan.claim_notice_days,
    max_claims_per_year: plan.max_claims_per_year,
  }
}

export function subscriptionQuoteResource(quote: SubscriptionQuote) {
  return {
    id: quote.plan.id,
    name: quote.plan.name,
    monthly_premium: centsToAmount(quote.monthlyPremium),
    lmi: centsToAmount(quote.lmi),
    installments: quote.plan.installments,
  }
}

export function annualQuoteResource(quote: AnnualQuote) {
  return {
    model: { id: quote.model.id, name: quote.model.name },
    plan: {
      id: quote.plan.id,
      name: quote.plan.name,
      coverages: JSON.parse(quote.plan.coverages) as string[],
    },
    premium: centsToAmount(quote.premium),
    lmi: centsToAmount(quote.lmi),
  }
}
