// The error bodies (README, Using the API: errors) and the response entries a route lists for the
// errors it can answer, each narrowed to the codes that route can say.

import { type TSchema, Type } from 'typebox'
import { ERROR_CODES, type ErrorCode, type ErrorStatus, statusOf } from '../shared/errors.js'

const codesOfStatuses = (...statuses: ErrorStatus[]) => statuses.flatMap((status) => ERROR_CODES[status])

const Code = (codes: readonly ErrorCode[]) =>
  Type.Unsafe<ErrorCode>({
    type: 'string',
    enum: codes,
    description: 'Stable, machine-readable: branch on it.',
  })

const RequestId = Type.String({
  description: 'The `X-Request-Id` of this response: quote it to support.',
})

// The error bodies (README, Using the API: errors), registered once by $id and referenced by
// every route; each route's entry narrows `code` to the codes that route can answer.
export const ErrorSchema = Type.Object(
  {
    code: Code(Object.values(ERROR_CODES).flat()),
    message: Type.String(),
    request_id: RequestId,
  },
  {
    $id: 'Error',
    description: 'Error (4xx other than 402 and 422, and 5xx).',
    examples: [
      {
        code: 'unauthenticated',
        message: 'Unauthenticated.',
        request_id: 'b5d1c8e2-1f0a-4c4e-9a57-2f0e6d1f3a9b',
      },
    ],
  },
)

export const ValidationErrorSchema = Type.Object(
  {
    code: Code(codesOfStatuses(402, 422)),
    message: Type.String({ description: "The first error, Laravel style: '... (and N more errors)'." }),
    errors: Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'Messages keyed by the dot path of the offending input (`address.zip_code`).',
    }),
    decline_code: Type.Optional(Type.String({ description: 'Present on 402: why the card was declined.' })),
    request_id: RequestId,
  },
  {
    $id: 'ValidationError',
    description: 'Invalid input, business rule or state refused (422); card declined (402).',
    examples: [
      {
        code: 'validation_failed',
        message: 'The per page field must not be greater than 100.',
        errors: { per_page: ['The per page field must not be greater than 100.'] },
        request_id: 'b5d1c8e2-1f0a-4c4e-9a57-2f0e6d1f3a9b',
      },
    ],
  },
)

export const sharedSchemas = [ErrorSchema, ValidationErrorSchema]

const errorRef = Type.Ref('Error')
const validationRef = Type.Ref('ValidationError')

const descriptions: Record<ErrorStatus, string> = {
  400: 'The body is not valid JSON, or not UTF-8.',
  401: 'Missing, invalid or expired token (`WWW-Authenticate: Bearer`).',
  402: 'The card was declined.',
  404: 'Not found, or not this partner’s.',
  408: 'The request did not arrive in time.',
  409: 'A request with this Idempotency-Key is still in flight.',
  413: 'The body is larger than 1 MiB.',
  415: 'A body was sent with a content type other than application/json, a charset other than UTF-8, or a Content-Encoding.',
  417: 'An `Expect` header other than `100-continue`.',
  422: 'Invalid parameter, or the business rule refused the call.',
  429: 'Too many requests.',
  431: 'The request headers are too large.',
  500: 'Server fault; quote `request_id` to support.',
  502: 'The card gateway refused our request as malformed (a bug or a misconfiguration, never the caller’s fault): nothing was charged; quote `request_id` to support.',
  503: 'The database is unreachable for a moment; retry after `Retry-After` seconds.',
}

/**
 * The codes a bare status means in a route's list: what any route answering that status can say.
 * The narrower ones (a state or gateway refusal, a payment in progress) are listed by name.
 */
const GENERAL_CODES: Partial<Record<ErrorStatus, ErrorCode[]>> = {
  422: ['validation_failed'],
}

/** What a route answers: a status (its general codes) or a code (its status). */
export type ErrorAnswer = ErrorStatus | ErrorCode

/**
 * The response entry of one error status: the shared schema with `code` narrowed to `codes`
 * (an `allOf`, which generators render as the shared type with a union of literals);
 * `description` where a route means something narrower.
 */
export function errorResponse(
  status: ErrorStatus,
  description = descriptions[status],
  codes: readonly ErrorCode[] = GENERAL_CODES[status] ?? ERROR_CODES[status],
): TSchema {
  return Type.Unsafe({
    description,
    allOf: [
      status === 422 || status === 402 ? validationRef : errorRef,
      { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: [...codes] } } },
    ],
  })
}

export type ErrorEntry = {
  description?: string
  allOf?: [unknown, { properties: { code: { enum: ErrorCode[] } } }]
}

/** The codes a response entry lists (none for a success). */
export function codesIn(entry: unknown): ErrorCode[] {
  return (entry as ErrorEntry | undefined)?.allOf?.[1]?.properties?.code?.enum ?? []
}

/**
 * Response entries for the error statuses and codes a route can produce, and those any request may
 * meet: 431 (headers over 16 KB, refused before routing), 500 and 503.
 */
export function errorResponses(...answers: ErrorAnswer[]): Record<number, TSchema> {
  const codes = new Map<ErrorStatus, Set<ErrorCode>>()
  for (const answer of [...answers, 431, 500, 503] as ErrorAnswer[]) {
    const status = typeof answer === 'number' ? answer : statusOf(answer)
    const named = typeof answer === 'number' ? (GENERAL_CODES[status] ?? ERROR_CODES[status]) : [answer]
    codes.set(status, new Set([...(codes.get(status) ?? []), ...named]))
  }
  return Object.fromEntries(
    [...codes].map(([status, listed]) => [status, errorResponse(status, undefined, [...listed])]),
  )
}
