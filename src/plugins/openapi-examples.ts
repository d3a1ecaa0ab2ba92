import type { FastifyContextConfig } from 'fastify'
import type { ErrorCode } from '../shared/errors.js'
import { sizeLabel } from './http.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The `errors` of the route's documented 422 example, where the rules of errorExample cannot
     * find one (login: no field is required by itself). The example test runs it.
     */
    validationExample?: Record<string, string[]>
    /**
     * The message of the route's documented 422 `invalid_state` example, for a route whose only
     * 422 is a state refusal (a certificate of a contract not in force).
     */
    stateExample?: string
  }
}

type InputSchema = { type?: unknown; enum?: unknown[]; pattern?: string }

/** What errorExample reads of a route: its input schemas, body limit and config. */
export interface ExampleRoute {
  url: string
  body?: { required?: string[]; examples?: unknown[] }
  query?: { properties?: Record<string, InputSchema> }
  bodyLimit?: number
  config?: FastifyContextConfig
}

const REQUEST_ID = 'b5d1c8e2-1f0a-4c4e-9a57-2f0e6d1f3a9b'

/** The service's own messages (plugins, errors.ts, card.ts), for the codes whose text is fixed. */
const MESSAGES: Partial<Record<ErrorCode, string>> = {
  invalid_json: 'The request body is not valid JSON.',
  bad_request: 'The request body ended before it was complete.',
  unauthenticated: 'Unauthenticated.',
  request_timeout: 'The request body did not arrive within 30 s.',
  idempotency_key_in_flight: 'A request with this Idempotency-Key is still in progress.',
  payment_in_progress: 'A payment of this item is in progress: try again once it has answered.',
  unsupported_media_type: 'The request body must be sent as application/json.',
  expectation_failed: 'Only "Expect: 100-continue" is supported.',
  rate_limited: 'Too many requests. Retry in 42 seconds.',
  headers_too_large: 'Request header fields too large (at most 16 KB, the URL included).',
  server_error: 'Server error.',
  gateway_error: 'The payment gateway refused the request; nothing was charged. Quote request_id to support.',
  service_unavailable: 'Service temporarily unavailable. Retry shortly.',
}

/** `model_id` → `model id`, `creditCard` → `credit card`, as the service's messages name fields. */
const words = (field: string) =>
  field
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_[\]]+/g, ' ')
    .trim()
    .toLowerCase()

/** `/annual-plans/{id}/cancellation/{protocol}` → `Cancellation`: what the last parameter names. */
function resourceOf(url: string): string {
  const segments = url.split('/').filter(Boolean)
  const last = segments.findLastIndex((s) => s.startsWith(':') || s.startsWith('{'))
  const collection = (segments[last - 1] ?? 'resource').replace(/s$/, '').replace(/-/g, ' ')
  return collection.charAt(0).toUpperCase() + collection.slice(1)
}

/**
 * The 422 a route's example shows, chosen so that a test can cause it from the route's other
 * examples: the route's own `validationExample`; else its first required body field left out;
 * else a query number, choice or pattern not matched; else a malformed Idempotency-Key.
 */
function validationErrors(route: ExampleRoute): Record<string, string[]> | undefined {
  if (route.config?.validationExample) return route.config.validationExample
  const required = route.body?.required?.[0]
  if (required) return { [required]: [`The ${words(required)} field is required.`] }
  // Not a path parameter: a malformed one names no resource (404).
  for (const [name, schema] of Object.entries(route.query?.properties ?? {})) {
    if (schema.type === 'integer') return { [name]: [`The ${words(name)} field must be an integer.`] }
    if (schema.enum) return { [name]: [`The selected ${words(name)} is invalid.`] }
    if (schema.pattern) return { [name]: [`The ${words(name)} field format is invalid.`] }
  }
  if (route.config?.documentedHeaders?.['Idempotency-Key'])
    return { 'Idempotency-Key': ['The Idempotency-Key header must be 1 to 255 visible ASCII characters.'] }
  return undefined
}

/**
 * A realistic error body for one status of a route, with the first code the route lists for it
 * (the route's own before a plugin's). Undefined when no rule gives one a test could cause.
 */
export function errorExample(status: number, codes: ErrorCode[], route: ExampleRoute): object | undefined {
  const code = codes[0]
  if (!code) return undefined
  if (status === 422) {
    const state = code === 'invalid_state' ? route.config?.stateExample : undefined
    if (state) return { code, message: state, errors: { status: [state] }, request_id: REQUEST_ID }
    const errors = codes.includes('validation_failed') ? validationErrors(route) : undefined
    if (!errors) return undefined
    const [first, ...rest] = Object.values(errors).flat()
    const more = rest.length ? ` (and ${rest.length} more error${rest.length > 1 ? 's' : ''})` : ''
    return { code: 'validation_failed', message: `${first}${more}`, errors, request_id: REQUEST_ID }
  }
  if (status === 402) {
    const message = 'The card was declined.'
    return {
      code,
      message,
      errors: { creditCard: [message] },
      decline_code: 'card_declined',
      request_id: REQUEST_ID,
    }
  }
  const message =
    code === 'not_found'
      ? `${resourceOf(route.url)} not found.`
      : code === 'payload_too_large'
        ? `The request body must not be larger than ${sizeLabel(route.bodyLimit ?? 1024 * 1024)}.`
        : (MESSAGES[code] ?? code)
  return { code, message, request_id: REQUEST_ID }
}
