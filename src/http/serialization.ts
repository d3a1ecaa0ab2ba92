import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

type Schemas = Record<string, unknown>

/** The names a schema's `$ref`s point at (`Subscription`), local pointers (`#/…`) aside. */
function refsOf(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) refsOf(item, found)
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#'))
        found.add(value.split('#')[0] ?? value)
      else refsOf(value, found)
    }
  }
  return found
}

/**
 * Fastify's serializer factory, given to each response only the shared schemas it refers to
 * (transitively) rather than all of them: fast-json-stringify takes in every external schema it is
 * handed for each status of each route, and with the named resources (`named`) that doubled the
 * time the app took to start. The answers' code is the same.
 */
export function buildSerializer(externalSchemas: unknown, options?: object) {
  const shared = (externalSchemas ?? {}) as Schemas
  const factory = SerializerSelector()
  const closure = new Map<string, string[]>()
  const namesFrom = (name: string): string[] => {
    let names = closure.get(name)
    if (!names) {
      names = [name]
      closure.set(name, names)
      for (const next of refsOf(shared[name]))
        for (const n of namesFrom(next)) if (!names.includes(n)) names.push(n)
    }
    return names
  }
  return (route: { schema?: unknown; method: string; url: string; httpStatus: string }) => {
    const used = [...refsOf(route.schema)].flatMap(namesFrom)
    const schemas = Object.fromEntries(
      used.filter((name) => name in shared).map((name) => [name, shared[name]]),
    )
    return factory(schemas, options)(route)
  }
}
