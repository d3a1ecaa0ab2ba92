import type { FastifyContextConfig, FastifyInstance } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Request headers read by a hook or the handler rather than validated by the route schema:
     * listed in the OpenAPI document only (plugins/openapi-transforms.ts), checked where they are read.
     */
    documentedHeaders?: Record<string, { type: 'string'; description: string; pattern?: string }>
    /** Under a per-partner or login rate limit: documented with 429 and the RateLimit-* headers. */
    rateLimited?: boolean
  }
}

import { type Static, type TSchema, Type } from 'typebox'
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

/** The resource schemas `named` has registered, by `$id`: app.ts adds them with the shared ones. */
const namedSchemas = new Map<string, TSchema>()

/**
 * A resource schema named in the OpenAPI document: registered once by its `$id` (`namedSchemas`,
 * which app.ts adds to the app) and referenced by `$ref` wherever it appears, a route's response or
 * another resource, so that `components.schemas` holds it once and generated clients export its
 * type (`Subscription`). The reference is typed as the schema; the serializer resolves it when it
 * compiles the route, so answers are written as fast as with the schema inline.
 */
export function named<T extends TSchema>(name: string, schema: T) {
  if (namedSchemas.has(name)) throw new Error(`Two schemas are named ${name}`)
  namedSchemas.set(name, { ...schema, $id: name })
  return Type.Unsafe<Static<T>>({ $ref: name })
}

/** The first example of the schema a `named` reference points at. */
export function exampleOf(reference: TSchema): unknown {
  const { $ref, examples } = reference as { $ref?: string; examples?: unknown[] }
  const schema = ($ref === undefined ? reference : namedSchemas.get($ref)) as
    | { examples?: unknown[] }
    | undefined
  return (schema?.examples ?? examples)?.[0]
}

/** Every schema `named` has registered (once all schema files are imported). */
export function resourceSchemas(): TSchema[] {
  return [...namedSchemas.values()]
}

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

type ErrorEntry = { description?: string; allOf?: [unknown, { properties: { code: { enum: ErrorCode[] } } }] }

/** The codes a response entry lists (none for a success). */
function codesIn(entry: unknown): ErrorCode[] {
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

/**
 * A route's responses with a plugin's error answers added: where both list a status, the route's
 * entry (its description) is kept and the codes are the union of both.
 */
function withErrorResponses(response: Record<number, unknown>, answers: ErrorAnswer[]) {
  const added = errorResponses(...answers)
  const merged: Record<number, unknown> = { ...added, ...response }
  for (const [key, entry] of Object.entries(added)) {
    const status = Number(key) as ErrorStatus
    const own = response[status] as ErrorEntry | undefined
    if (!own) continue
    const codes = [...new Set([...codesIn(own), ...codesIn(entry)])]
    merged[status] = errorResponse(status, own.description, codes)
  }
  return merged
}

/** For a rate limit over every route of its scope: its 429 and headers go into the document. */
export function documentRateLimit(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<number, unknown> | undefined
    if (!response) return
    route.schema = { ...route.schema, response: withErrorResponses(response, [429]) }
    route.config = { ...route.config, rateLimited: true }
  })
}

/**
 * For a plugin that acts on every POST and PUT of its scope (a request body, an Idempotency-Key):
 * documents on each such route the statuses it causes, unless the route lists them itself, and
 * the headers it reads.
 */
export function documentOnWrites(
  app: FastifyInstance,
  answers: ErrorAnswer[],
  headers?: NonNullable<FastifyContextConfig['documentedHeaders']>,
  applies: (method: string | string[]) => boolean = isWrite,
) {
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<number, unknown> | undefined
    if (!response || !applies(route.method)) return
    route.schema = { ...route.schema, response: withErrorResponses(response, answers) }
    if (headers) {
      route.config = {
        ...route.config,
        documentedHeaders: { ...route.config?.documentedHeaders, ...headers },
      }
    }
  })
}

/** Whether a route answers POST, PUT or PATCH, the methods that take a body and an Idempotency-Key. */
export function isWrite(method: string | string[]): boolean {
  return [method].flat().some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH')
}

/** A route option's hooks (none, one or several) as a list, to append one of a plugin's. */
export function hookList<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : ([hooks].flat() as T[])
}

/**
 * Keywords for the OpenAPI document only (plugins/openapi-transforms.ts merges them into the schema it
 * documents), for a rule a service checks itself so that its error joins the others in one 422:
 * validation ignores the unknown keyword.
 */
export const DOCUMENTED_ONLY = 'x-documented-only'

/**
 * A named schema's form in the OpenAPI document, in place of the one answers are written with
 * (plugins/openapi-transforms.ts): the events, documented as the union of their types, are written as one
 * open object, which the serializer takes fast and which no union branch can refuse.
 */
export const DOCUMENTED_AS = 'x-documented-as'

/** `{ link }`: the absolute address of a resource. */
export const MetaLink = Type.Object({
  link: Type.String({ format: 'uri', description: 'Absolute address of the resource.' }),
})

/** An integer id; bounded so that no input can overflow a database integer. */
export const Id = (description: string, example?: number) =>
  Type.Integer({
    minimum: 1,
    maximum: 2_147_483_647,
    description,
    // Path examples name what a fresh demo holds, or what the example test creates first.
    ...(example !== undefined && { examples: [example] }),
  })

/**
 * A nullable input field as `type: [T, 'null']` rather than `anyOf [T, null]`: one branch, so a
 * too-long or malformed value answers one error under its own key instead of an extra
 * "the selected … is invalid".
 */
export function nullable<T extends TSchema>(schema: T, description: string) {
  const { type } = schema as { type?: string }
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'], description })
}

/** An amount of money in the API: reais as a JSON number with at most two decimals. */
export const Money = (description: string) =>
  Type.Number({ description: `${description} In reais (BRL), at most two decimals.` })

/** A timestamp in the API. */
export const Timestamp = (description: string) =>
  Type.String({ description: `${description} \`YYYY-MM-DD HH:MM:SS\` in the service time zone.` })

/** Whether a route answers a method that may carry a body, even one its route reads not: DELETE too. */
export function mayCarryBody(method: string | string[]): boolean {
  return isWrite(method) || [method].flat().includes('DELETE')
}
