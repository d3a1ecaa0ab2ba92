/**
 * Response bodies as the generated client schema (clients/typescript/src/schema.ts) declares them,
 * so a test reads the API's own types instead of a hand-written copy that can drift. Named by the
 * OpenAPI operation that answers them; `Body<'getSubscription'>` reaches any other.
 */
import type { components, operations } from '../../clients/typescript/src/schema.js'

/** The JSON body the operation answers with `status`. */
export type Body<
  Op extends keyof operations,
  Status extends number = 200,
> = operations[Op]['responses'] extends {
  [S in Status]: { content: { 'application/json': infer B } }
}
  ? B
  : never

export type Subscription = Body<'getSubscription'>
export type Installment = Body<'listInstallments'>[number]
export type Customer = Body<'registerCustomer', 201>
export type Brand = Body<'getBrand'>
export type Model = Body<'getModel'>
export type Store = Body<'getStore'>
export type StoreCreated = Body<'registerStore', 201>
export type AnnualPlan = Body<'getAnnualPlan'>
export type AnnualPlanCancellation = Body<'requestAnnualPlanCancellation'>
export type SubscriptionQuote = Body<'quoteSubscriptionPlan'>
/** Every plan's quote for one model (`GET /quotation`). */
export type SubscriptionQuotes = Body<'quoteSubscriptionPlans'>
export type AnnualQuote = Body<'quoteAnnualPlan'>
export type Event = Body<'getEvent'>
export type WebhookEndpoint = Body<'getWebhookEndpoint'>

/** Any 4xx but 402 and 422, and 5xx. */
export type ErrorBody = components['schemas']['Error']
/** 422 (validation, business rule, state) and 402 (card declined). */
export type ValidationErrorBody = components['schemas']['ValidationError']
/** Whichever error answered: `errors` and `decline_code` are there when the status gives them. */
export type AnyErrorBody = ErrorBody & Partial<Pick<ValidationErrorBody, 'errors' | 'decline_code'>>
