/**
 * Response bodies as the generated client schema (clients/typescript/src/schema.ts) declares them,
 * so a test reads the API's own types instead of a hand-written copy that can drift.
 */
import type { paths } from '../../clients/typescript/src/schema.js'

type Ok<P extends keyof paths> = paths[P] extends { get: { responses: { 200: { content: infer C } } } }
  ? C extends { 'application/json': infer B }
    ? B
    : never
  : never

export type Subscription = Ok<'/subscriptions/{subscriptionId}'>
export type Installment = Ok<'/subscriptions/{subscriptionId}/installments'>[number]
