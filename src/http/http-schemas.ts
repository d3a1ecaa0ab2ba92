import type { FastifyContextConfig, FastifyInstance } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Request headers read by a hook or the handler rather than validated by the route schema:
     * listed in the OpenAPI document only (plugins/openapi.ts), checked where they are read.
     */
    documentedHeaders?: Record<string, { type: 'string'; description: string; pattern?: string }>
    /** Under a per-partner or login rate limit: documented with 429 and the RateLimit-* headers. */
    rateLimited?: boolean
  }
}

import { type Static, type TSchema, Type } from 'typebox'

// The contract's error bodies (CONTRACT §2), registered once by $id and referenced by every route.
export const ErrorSchema = Type.Object(
  {
    message: Type.String(),
    request_id: Type.Optional(Type.String({ description: 'Present on 5xx: quote it to support.' })),
  },
  {
    $id: 'Error',
    description: 'Error (4xx other than 422, and 5xx).',
    examples: [{ message: 'Unauthenticated.' }],
  },
)

export const ValidationErrorSchema = Type.Object(
  {
    message: Type.String({ description: "The first error, Laravel style: '... (and N more errors)'." }),
    errors: Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'Messages keyed by the dot path of the offending input (`address.zip_code`).',
    }),
    decline_code: Type.Optional(Type.String({ description: 'Present on 402: why the card was declined.' })),
  },
  {
    $id: 'ValidationError',
    description: 'Invalid input, business rule or state refused (422); card declined (402).',
    examples: [
      {
        message: 'The per page field must not be greater than 100.',
        errors: { per_page: ['The per page field must not be greater than 100.'] },
      },
    ],
  },
)

export const sharedSchemas = [ErrorSchema, ValidationErrorSchema]

const errorRef = Type.Ref('Error')
const validationRef = Type.Ref('ValidationError')

const descriptions: Record<number, string> = {
  400: 'The body is not valid JSON, or not UTF-8.',
  401: 'Missing, invalid or expired token (`WWW-Authenticate: Bearer`).',
  402: 'The card was declined.',
  404: 'Not found, or not this partner’s.',
  408: 'The body did not arrive in time; the connection is closed.',
  409: 'A request with this Idempotency-Key is still in flight.',
  413: 'The body is larger than 1 MiB.',
  415: 'A body was sent with a content type other than application/json, a charset other than UTF-8, or a Content-Encoding.',
  422: 'Invalid parameter, or the business rule refused the call.',
  429: 'Too many requests.',
  500: 'Server fault; quote `request_id` to support.',
  503: 'The database is unreachable for a moment; retry after `Retry-After` seconds.',
}

/** The response entry of one error status; `description` where a route means something narrower. */
export function errorResponse(status: number, description = descriptions[status]): TSchema {
  return Type.Unsafe({ ...(status === 422 || status === 402 ? validationRef : errorRef), description })
}

/** Response entries for the error statuses a route can produce, each described. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const all = [...new Set([...statuses, 500, 503])]
  return Object.fromEntries(all.map((status) => [status, errorResponse(status)]))
}

/** For a rate limit over every route of its scope: its 429 and headers go into the document. */
export function documentRateLimit(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<number, unknown> | undefined
    if (!response) return
    route.schema = { ...route.schema, response: { ...errorResponses(429), ...response } }
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
  statuses: number[],
  headers?: NonNullable<FastifyContextConfig['documentedHeaders']>,
) {
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<number, unknown> | undefined
    if (!response || !isWrite(route.method)) return
    route.schema = { ...route.schema, response: { ...errorResponses(...statuses), ...response } }
    if (headers) {
      route.config = {
        ...route.config,
        documentedHeaders: { ...route.config?.documentedHeaders, ...headers },
      }
    }
  })
}

/** Whether a route answers POST or PUT, the methods that take a body and an Idempotency-Key. */
export function isWrite(method: string | string[]): boolean {
  return [method].flat().some((m) => m === 'POST' || m === 'PUT')
}

/** A route option's hooks (none, one or several) as a list, to append one of a plugin's. */
export function hookList<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : ([hooks].flat() as T[])
}

/** `{ link }`: the absolute address of a resource. */
export const MetaLink = Type.Object({
  link: Type.String({ format: 'uri', description: 'Absolute address of the resource.' }),
})

/** An integer id; bounded so that no input can overflow a database integer. */
export const Id = (description: string) => Type.Integer({ minimum: 1, maximum: 2_147_483_647, description })

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
