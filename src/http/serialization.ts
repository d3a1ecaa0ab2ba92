import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

type Schemas = Record<string, unknown>

/**
 * `schema` with each `$ref` to a shared schema (`Subscription`, registered by `named`) replaced by
 * that schema, recursively; local pointers (`#/…`) are left as they are.
 */
function inlined(schema: unknown, shared: Schemas): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inlined(item, shared))
  if (!schema || typeof schema !== 'object') return schema
  const { $ref, ...rest } = schema as { $ref?: unknown }
  if (typeof $ref === 'string' && $ref in shared) {
    const { $id: _id, ...target } = shared[$ref] as Schemas
    return inlined({ ...target, ...rest }, shared)
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inlined(value, shared)]))
}

/**
 * Fastify's serializer factory, compiling each response with the shared schemas it refers to
 * written in place: fast-json-stringify then builds one function for the answer rather than one
 * called per reference (a page of subscriptions: −4 % of its instructions, docs/benchmarks.md).
 * Handing it the shared schemas as external ones instead doubled the time the app took to start.
 */
export function buildSerializer(externalSchemas: unknown, options?: object) {
  const shared = (externalSchemas ?? {}) as Schemas
  const factory = SerializerSelector()
  return (route: { schema?: unknown; method: string; url: string; httpStatus: string }) =>
    factory({}, options)({ ...route, schema: inlined(route.schema, shared) })
}
