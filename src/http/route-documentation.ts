import type { FastifyContextConfig, FastifyInstance } from 'fastify'
import type { ErrorStatus } from '../shared/errors.js'
import {
  codesIn,
  type ErrorAnswer,
  type ErrorEntry,
  errorResponse,
  errorResponses,
} from './error-responses.js'

// What a plugin acting on many routes (a rate limit, a body or Idempotency-Key rule) adds to each
// route's OpenAPI entry: the error statuses it causes and the headers it reads.

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

/** Whether a route answers a method that may carry a body, even one its route reads not: DELETE too. */
export function mayCarryBody(method: string | string[]): boolean {
  return isWrite(method) || [method].flat().includes('DELETE')
}
