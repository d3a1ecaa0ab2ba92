import type { Db, Reader } from '../../db/database.js'
import { type FieldErrors, NotFoundError, ValidationError } from '../../shared/errors.js'
import type { PartnerContext } from '../auth/partner-context.js'
import { availableModel, type ModelRow } from '../catalog/catalog.service.js'
import {
  type AnnualProductRow,
  findAnnualPlan,
  findDefaultAnnualPlan,
  findSubscriptionPlan,
  listSubscriptionPlans,
  type SubscriptionPlanRow,
} from './plan.repository.js'
import { annualPremium, applicableLmi, maximaToCents, subscriptionPrice } from './pricing.rules.js'

export interface QuoteInput {
  modelId: number
  /** Desired LMI in reais, as sent. */
  maxima?: number
}

export interface AnnualQuoteInput extends QuoteInput {
  used: boolean
  planId?: number
}

/** Amounts in cents. */
export interface SubscriptionQuote {
  plan: SubscriptionPlanRow
  lmi: number
  monthlyPremium: number
}

export interface AnnualQuote {
  model: ModelRow
  plan: AnnualProductRow
  lmi: number
  premium: number
}

export interface Priced {
  model: ModelRow
  /** Cents. */
  lmi: number
}

/**
 * The model and the LMI to price, for a quotation or a contract alike. Input errors are added to
 * `errors` rather than thrown, so that a call with several bad parameters hears about all of them
 * in one 422, as Laravel answers.
 */
export async function priceModel(
  db: Reader,
  partner: PartnerContext,
  input: QuoteInput,
  errors: FieldErrors,
): Promise<Priced | undefined> {
  const model = await availableModel(db, partner.partnerId, input.modelId)
  // 422, not 404: the model is a parameter of the quotation, not the resource addressed.
  if (!model) errors.model_id = ['The selected model id is invalid.']
  const maximaCents = input.maxima === undefined ? undefined : maximaToCents(input.maxima)
  if (maximaCents === null) {
    errors.maxima = [
      Number.isFinite(input.maxima)
        ? 'The maxima field must have at most 2 decimal places.'
        : 'The maxima field must be a number.',
    ]
  }
  if (!model || maximaCents === null) return undefined
  const range = { minFactorBp: partner.lmiMinFactorBp, maxFactorBp: partner.lmiMaxFactorBp }
  return { model, lmi: applicableLmi(model.default_lmi, range, maximaCents) }
}

function subscriptionQuote(plan: SubscriptionPlanRow, lmi: number): SubscriptionQuote {
  const rates = { monthlyRateBp: plan.monthly_rate_bp, franchiseRateBp: plan.franchise_rate_bp }
  return { plan, lmi, monthlyPremium: subscriptionPrice(lmi, rates).monthlyPremium }
}

/** Every active subscription plan of the partner, priced for one model. */
export async function quoteSubscriptionPlans(
  db: Db,
  partner: PartnerContext,
  input: QuoteInput,
): Promise<SubscriptionQuote[]> {
  const errors: FieldErrors = {}
  const priced = await priceModel(db, partner, input, errors)
  if (!priced) throw new ValidationError(errors)
  const plans = await listSubscriptionPlans(db, partner.partnerId)
  return plans.map((plan) => subscriptionQuote(plan, priced.lmi))
}

/** One subscription plan priced for one model; the plan is the resource addressed, so it is checked first. */
export async function quoteSubscriptionPlan(
  db: Db,
  partner: PartnerContext,
  planId: number,
  input: QuoteInput,
): Promise<SubscriptionQuote> {
  const plan = await findSubscriptionPlan(db, partner.partnerId, planId)
  if (!plan) throw new NotFoundError('Plan')
  const errors: FieldErrors = {}
  const priced = await priceModel(db, partner, input, errors)
  if (!priced) throw new ValidationError(errors)
  return subscriptionQuote(plan, priced.lmi)
}

/** An annual plan (the named one, else the partner's default) priced for one model. */
export async function quoteAnnualPlan(
  db: Reader,
  partner: PartnerContext,
  input: AnnualQuoteInput,
): Promise<AnnualQuote> {
  const errors: FieldErrors = {}
  const priced = await priceModel(db, partner, input, errors)
  const plan =
    input.planId === undefined
      ? await findDefaultAnnualPlan(db, partner.partnerId)
      : await findAnnualPlan(db, partner.partnerId, input.planId)
  if (!plan) {
    errors.plan_id = [
      input.planId === undefined
        ? 'This partner has no annual plan to quote.'
        : 'The selected plan id is invalid.',
    ]
  }
  if (!priced || !plan) throw new ValidationError(errors)
  const rates = { annualRateBp: plan.annual_rate_bp, usedFactorBp: plan.used_factor_bp }
  return { model: priced.model, plan, lmi: priced.lmi, premium: annualPremium(priced.lmi, rates, input.used) }
}
