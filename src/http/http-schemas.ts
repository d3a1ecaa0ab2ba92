import { type Static, type TSchema, Type } from 'typebox'

// The building blocks of the API's TypeBox schemas: named resources, ids, money, timestamps and the
// keywords only the OpenAPI document reads. Error bodies: error-responses.ts.

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

/** How an installment or annual plan was paid (`paid_with`); null while unpaid. */
export const PaidWithSchema = Type.Union([Type.Enum(['card', 'pix', 'boleto', 'external']), Type.Null()], {
  description:
    'How it was paid: `card` (the own gateway, at the counter or by the recurrence), `pix`, `boleto`, or `external` (the partner notified a payment it collected); null while unpaid.',
})
