import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { usedDevice } from '../../http/contracting-fields.js'
import { errorResponses } from '../../http/error-responses.js'
import { type FieldErrors, ValidationError } from '../../shared/errors.js'
import { annualQuoteResource, planResource, subscriptionQuoteResource } from './plan.mapper.js'
import {
  AnnualQuote,
  AnnualQuoteQuery,
  PlanList,
  PlanParams,
  PlanQuotation,
  Quotation,
  QuotationQuery,
} from './plan.schemas.js'
import { subscriptionPlansOf } from './plan.service.js'
import { quoteAnnualPlan, quoteSubscriptionPlan, quoteSubscriptionPlans } from './quotation.service.js'

const tags = ['Plans']

const LMI_RULE = `**LMI (maximum indemnity limit).** The partner's authorized range for a model is
\`[min factor × default LMI, max factor × default LMI]\`, each end rounded half-up to the cent and
both ends inclusive; the operator sets the factors (0.5 and 1.0 unless agreed otherwise).
\`maxima\` inside the range is the LMI. Absent, empty, zero, negative, below the minimum or above
the maximum, the model's default LMI applies and **no error** is returned. \`maxima\` with more
than two decimals, or not a number, answers 422 with \`errors.maxima\`.

**Model.** \`model_id\` must be a model this partner may sell (\`GET /models\`): an unknown or
inactive model, or one not available to this partner, answers 422 with \`errors.model_id\` (it is
a parameter, not the resource addressed). A 422 lists every malformed parameter at once; the
model (and plan) are looked up once the parameters are well-formed.

**Money.** Prices are computed in integer cents and rounded once, half-up to the cent (\`.5\` of a
cent goes up); amounts are JSON numbers in reais with at most two decimals.`

const SUBSCRIPTION_PRICE = `\`monthly_premium\` = LMI × the plan's monthly rate, rounded half-up to
the cent; every installment of a subscription contracted with this LMI has that amount.`

const BOOLEAN_QUERY = new Set(['used', 'is_used'])

/**
 * Booleans may come as 1/0, as clients written for the Laravel service send them. Read so before
 * validation, the schemas stay a plain boolean, and `abc` still answers "must be a boolean".
 * (Blank parameters are dropped by the http plugin.)
 */
async function normalizeQuery(request: FastifyRequest) {
  const query = request.query as Record<string, unknown>
  for (const key of BOOLEAN_QUERY) {
    const value = query[key]
    if (value === '1' || value === '0') query[key] = value === '1'
  }
}

export const planRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('preValidation', normalizeQuery)

  app.get(
    '/plans',
    {
      schema: {
        tags,
        operationId: 'listSubscriptionPlans',
        summary: 'List subscription plans',
        description: `The partner's active subscription plans, by id; not paginated. Annual plans are
not listed (they are quoted with \`GET /annual-plans/quote\`). \`coverages\` lists what each plan covers.`,
        response: { 200: PlanList, ...errorResponses(401) },
      },
    },
    async (request) => {
      const plans = await subscriptionPlansOf(app.db, request.partner.partnerId)
      return plans.map(planResource)
    },
  )

  app.get(
    '/quotation',
    {
      schema: {
        tags,
        operationId: 'quoteSubscriptionPlans',
        summary: 'Quote every subscription plan',
        description: `Prices every active subscription plan of the partner (by id) for one device
model; an empty \`plans\` array when the partner has none.

${SUBSCRIPTION_PRICE}

${LMI_RULE}`,
        querystring: QuotationQuery,
        response: { 200: Quotation, ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const { model_id: modelId, maxima } = request.query
      const quotes = await quoteSubscriptionPlans(app.db, request.partner, { modelId, maxima })
      return { plans: quotes.map(subscriptionQuoteResource) }
    },
  )

  app.get(
    '/plans/:planId/quotation',
    {
      schema: {
        tags,
        operationId: 'quoteSubscriptionPlan',
        summary: 'Quote one subscription plan',
        description: `Prices one subscription plan for one device model: the same item as in
\`GET /quotation\`. A plan that is not an active subscription plan of this partner (unknown,
another partner's, an annual plan, inactive) answers 404, whatever \`model_id\` and \`maxima\`
are; only a malformed query (\`model_id=abc\`) answers 422 first.

${SUBSCRIPTION_PRICE}

${LMI_RULE}`,
        params: PlanParams,
        querystring: QuotationQuery,
        response: { 200: PlanQuotation, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const { model_id: modelId, maxima } = request.query
      const quote = await quoteSubscriptionPlan(app.db, request.partner, request.params.planId, {
        modelId,
        maxima,
      })
      return subscriptionQuoteResource(quote)
    },
  )

  app.get(
    '/annual-plans/quote',
    {
      schema: {
        tags,
        operationId: 'quoteAnnualPlan',
        summary: 'Quote an annual plan',
        description: `Prices the 12-month single-payment Annual Plan for one device model.

**Plan.** Without \`plan_id\`, the partner's default annual plan is quoted (the one \`POST
/annual-plans\` uses when \`plan_id\` is absent): the active annual plan marked default, else the
partner's oldest active annual plan. A partner without any active annual plan answers 422 with
\`errors.plan_id\`, as does a \`plan_id\` that is not an active annual plan of this partner.

**Premium** = LMI × the plan's annual rate, multiplied by the plan's used-device factor when
\`used\` (alias \`is_used\`) is true, rounded half-up to the cent once over the exact product. Both sent
with different values → 422 under \`used\`.

${LMI_RULE}`,
        querystring: AnnualQuoteQuery,
        response: { 200: AnnualQuote, ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const { model_id: modelId, maxima, used, is_used: isUsed, plan_id: planId } = request.query
      const errors: FieldErrors = {}
      const usedFlag = usedDevice(isUsed, used, errors, 'used')
      if (Object.keys(errors).length > 0) throw new ValidationError(errors)
      const quote = await quoteAnnualPlan(app.db, request.partner, {
        modelId,
        maxima,
        used: usedFlag,
        planId,
      })
      return annualQuoteResource(quote)
    },
  )
}
