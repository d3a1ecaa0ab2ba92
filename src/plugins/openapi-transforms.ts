import { STATUS_CODES } from 'node:http'
import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger'
import type { FastifyContextConfig } from 'fastify'
import { DOCUMENTED_AS, DOCUMENTED_ONLY } from '../http/http-schemas.js'
import type { ErrorCode } from '../shared/errors.js'
import { type ExampleRoute, errorExample } from './openapi-examples.js'
import { addLinks } from './openapi-links.js'

// How the document generated from the route schemas is completed (openapi.ts registers them):
// per route (`documentRoute`), then over the whole document (`documentWhole`).

type QuerySchema = { required?: string[]; properties?: Record<string, PropertySchema> }
type PropertySchema = { default?: unknown; description?: string; examples?: unknown[] }
type ResponseEntry = {
  description?: string
  /** Headers the route itself sends (a download's), besides those the hooks add. */
  headers?: Record<string, Header>
  allOf?: [unknown, { properties?: { code?: { enum?: ErrorCode[] } } }]
}
type Header = { type: 'string' | 'integer'; description: string; enum?: string[] }
type BodySchema = Record<string, unknown> & { content?: Record<string, { schema: Record<string, unknown> }> }

/** A schema with its documentation-only keywords merged in (DOCUMENTED_ONLY). */
function withDocumentedOnly(schema: Record<string, unknown>): Record<string, unknown> {
  if (!schema[DOCUMENTED_ONLY]) return schema
  const { [DOCUMENTED_ONLY]: keywords, ...rest } = schema
  return { ...rest, ...(keywords as object) }
}

const HEADERS = {
  requestId: {
    'X-Request-Id': {
      type: 'string',
      description:
        'The caller’s `X-Request-Id` when it sent a sane one (1 to 128 of `A-Za-z0-9._:-`, no run of 13 or more digits), else a new UUID; an error body repeats it as `request_id`: quote it to support.',
    },
  },
  authenticate: { 'WWW-Authenticate': { type: 'string', description: '`Bearer`.' } },
  retryAfter: { 'Retry-After': { type: 'integer', description: 'Seconds to wait before trying again.' } },
  rateLimit: {
    'RateLimit-Limit': {
      type: 'integer',
      description: 'Requests allowed a minute: per partner (on login, per client id and address).',
    },
    'RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current minute.' },
    'RateLimit-Reset': { type: 'integer', description: 'Seconds until the count starts again.' },
  },
  replayed: {
    'Idempotent-Replayed': {
      type: 'string',
      enum: ['true'],
      description:
        'Present when this is the kept answer to an earlier request with the same `Idempotency-Key` (a kept 4xx is replayed the same way).',
    },
  },
} satisfies Record<string, Record<string, Header>>

/** The headers the hooks add to a response of this status: no route schema can carry them. */
function responseHeaders(status: number, config: FastifyContextConfig | undefined): Record<string, Header> {
  const success = status < 300
  return {
    ...HEADERS.requestId,
    ...(status === 401 && HEADERS.authenticate),
    ...((status === 429 || status === 503) && HEADERS.retryAfter),
    ...(config?.rateLimited && (success || status === 429) && HEADERS.rateLimit),
    ...(success && config?.documentedHeaders?.['Idempotency-Key'] && HEADERS.replayed),
  }
}

/**
 * What the route schemas cannot say by themselves:
 * - a query parameter with a default (page, per_page) is filled in by validation, so it stays in
 *   the schema's `required` list and the handlers' types; a client may leave it out, so the
 *   document must not mark it required (generated clients would demand it);
 * - an optional query parameter may be blank (`admitBlank`);
 * - a rule a service checks itself, documented as schema keywords (`DOCUMENTED_ONLY`);
 * - headers read by hooks or handlers (`config.documentedHeaders`: Idempotency-Key, X-CREDENTIALS),
 *   and the response headers hooks send (`responseHeaders`);
 * - a success response's description, which a resource schema does not have, and an example of
 *   each error response (openapi-examples.ts).
 */
export const documentRoute: SwaggerTransform = ({ schema, url, route }) => {
  if (!schema) return { schema, url }
  const result = { ...schema }
  const query = schema.querystring as QuerySchema | undefined
  if (query) {
    const required = query.required?.filter((name) => query.properties?.[name]?.default === undefined)
    const properties = Object.entries(query.properties ?? {}).map(([name, p]) => [
      name,
      required?.includes(name) ? p : admitBlank(p),
    ])
    result.querystring = { ...query, required, properties: Object.fromEntries(properties) }
  }
  const body = schema.body as BodySchema | undefined
  // A body per media type (a multipart upload) has its keywords in each.
  if (body?.content) {
    const content = Object.entries(body.content).map(([type, media]) => [
      type,
      { ...media, schema: withDocumentedOnly(media.schema) },
    ])
    result.body = { ...body, content: Object.fromEntries(content) }
  } else if (body) result.body = withDocumentedOnly(body)
  const headers = route.config?.documentedHeaders
  if (headers) result.headers = { type: 'object', properties: headers }
  const response = schema.response as Record<string, ResponseEntry> | undefined
  if (response) {
    const about: ExampleRoute = {
      url,
      body: schema.body as ExampleRoute['body'],
      query: schema.querystring as ExampleRoute['query'],
      bodyLimit: route.bodyLimit,
      config: route.config,
    }
    result.response = Object.fromEntries(
      Object.entries(response).map(([status, entry]) => {
        const codes = entry.allOf?.[1]?.properties?.code?.enum
        const example = codes && errorExample(Number(status), codes, about)
        return [
          status,
          {
            ...entry,
            description: entry.description ?? STATUS_CODES[status],
            headers: { ...entry.headers, ...responseHeaders(Number(status), route.config) },
            ...(example && { examples: [example] }),
          },
        ]
      }),
    )
  }
  return { schema: result, url }
}

/**
 * A blank query value means none (plugins/http.ts, before validation): the document admits `""`
 * beside what an optional parameter takes, so that a client or fuzzer sending `?page=` is within
 * it. A required one (`model_id`) stays as it is: blank, it is missing (422).
 */
function admitBlank({ description, default: fallback, examples, ...schema }: PropertySchema) {
  return {
    ...(description !== undefined && { description }),
    ...(fallback !== undefined && { default: fallback }),
    ...(examples !== undefined && { examples }),
    anyOf: [schema, { const: '', description: 'Blank: as if not sent.' }],
  }
}

type BodyForms = { required?: string[]; $ref?: string; oneOf?: { required?: string[] }[] }

/**
 * A body is required when it has a required field, or must take exactly one of its forms (`oneOf`:
 * the clock's advance). The login's `anyOf` forms say what a body holds when one is sent; the
 * credentials may come in a header instead, with no body.
 */
const requiresBody = (schema: BodyForms) =>
  (schema.required?.length ?? 0) > 0 ||
  (schema.oneOf?.every((form) => (form.required?.length ?? 0) > 0) ?? false)

type ObjectSchema = Record<string, unknown> & {
  properties?: Record<string, object | boolean>
  required?: string[]
  anyOf?: ObjectSchema[]
  oneOf?: ObjectSchema[]
}

/**
 * A body's forms (`anyOf`, `oneOf`) written beside its properties name only what differs between
 * them (`customer_id` or `customer_document`). Generators read such a branch as a body of its own
 * (openapi-typescript types `properties` + `anyOf` as `whole | branch | branch`, so that
 * `{ customer_id: 1 }` alone compiled): each form is written out whole instead, every property
 * with what the form requires, and a `oneOf` form rules out the fields that only another form
 * takes (the clock advances by `days` or by `hours`, never both; a claim falls under a subscription
 * or an annual plan).
 */
export function completeForms(schema: ObjectSchema): ObjectSchema {
  const keyword = schema.oneOf ? 'oneOf' : schema.anyOf ? 'anyOf' : undefined
  if (!keyword || !schema.properties) return schema
  const { properties, required = [], type: _object, anyOf: _any, oneOf: _one, ...rest } = schema
  const forms = schema[keyword] as ObjectSchema[]
  const whole = (form: ObjectSchema): ObjectSchema => {
    const others = forms.filter((other) => other !== form).flatMap((other) => other.required ?? [])
    const excluded = keyword === 'oneOf' ? others.filter((name) => !form.required?.includes(name)) : []
    const merged = Object.entries(properties).map(([name, property]) => [
      name,
      excluded.includes(name)
        ? absent(property)
        : { ...(property as object), ...(form.properties?.[name] as object) },
    ])
    return {
      type: 'object',
      properties: Object.fromEntries(merged),
      required: [...new Set([...required, ...(form.required ?? [])])],
    }
  }
  return { ...rest, [keyword]: forms.map(whole) }
}

/** A field another form takes: null where null counts as not sent, else not at all. */
function absent(property: object | boolean) {
  const type = typeof property === 'object' && 'type' in property ? property.type : undefined
  return Array.isArray(type) && type.includes('null') ? { type: 'null' } : false
}

type Operation = { requestBody?: { required?: boolean; content?: Record<string, { schema?: object }> } }

/**
 * @fastify/swagger marks every request body required; a body with no required field may be left
 * out (an empty body validates as `{}`, plugins/http.ts): cancellations, login by header
 * (`requiresBody`). A named schema's documentation-only keywords are merged in, or its documented
 * form replaces it (`DOCUMENTED_AS`: `Event`). Then the
 * links of the main flows, which route schemas cannot carry.
 */
export const documentWhole: SwaggerTransformObject = (document) => {
  if (!('openapiObject' in document)) return document.swaggerObject
  const { openapiObject } = document
  const schemas = (openapiObject.components?.schemas ?? {}) as Record<string, Record<string, unknown>>
  for (const [name, schema] of Object.entries(schemas))
    schemas[name] =
      (schema[DOCUMENTED_AS] as Record<string, unknown> | undefined) ?? withDocumentedOnly(schema)
  for (const item of Object.values(openapiObject.paths ?? {})) {
    for (const operation of Object.values(item ?? {}) as Operation[]) {
      const body = operation.requestBody
      const schema = body?.content?.['application/json']?.schema as BodyForms | undefined
      if (!body?.content || !schema || schema.$ref) continue
      body.required = requiresBody(schema)
      body.content['application/json'] = {
        ...body.content['application/json'],
        schema: completeForms(schema as ObjectSchema),
      }
    }
  }
  addLinks(openapiObject.paths as Record<string, Record<string, unknown>>)
  return openapiObject
}
