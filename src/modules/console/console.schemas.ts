import { type TSchema, Type } from 'typebox'
import { guardedErrors } from '../../console/console-schemas.js'
import { type ErrorAnswer, errorResponses } from '../../http/error-responses.js'
import { nullable } from '../../http/http-schemas.js'

// Shapes every console read shares. The console answers cents and UTC instants (ISO 8601); the
// screens format them in pt-BR (docs/decisions.md, Operator console data).

export const Cents = (description: string) => Type.Integer({ description: `${description} In cents.` })
export const NullableCents = (description: string) =>
  nullable(Type.Integer(), `${description} In cents; null when none.`)
export const Instant = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} UTC, ISO 8601.` })
export const NullableInstant = (description: string) =>
  nullable(Type.String({ format: 'date-time' }), `${description} UTC, ISO 8601; null when none.`)

export const PartnerRef = Type.Object(
  { id: Type.Integer(), name: Type.String() },
  { description: 'The partner.' },
)

/** A console page: the items, and where they are in the whole list. */
export function ConsolePage<T extends ReturnType<typeof Type.Object>>(item: T, example: unknown) {
  return Type.Object(
    {
      data: Type.Array(item),
      current_page: Type.Integer({ minimum: 1 }),
      per_page: Type.Integer({ minimum: 1 }),
      total: Type.Integer({ minimum: 0 }),
      last_page: Type.Integer({ minimum: 1 }),
    },
    {
      description: 'A page of a list: `data`, its number, its size, the total and the last page.',
      examples: [{ data: [example], current_page: 1, per_page: 25, total: 1, last_page: 1 }],
    },
  )
}

export const ConsolePageQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: 1, description: 'Page, from 1.' }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'Items a page (≤ 100).' }),
})

export const pageOf = <T>(data: T[], total: number, page: number, perPage: number) => ({
  data,
  current_page: page,
  per_page: perPage,
  total,
  last_page: Math.max(1, Math.ceil(total / perPage)),
})

/**
 * A console route's error answers: the guard's (401, 403, 500, 503) and the route's own statuses
 * or codes (404, 422, `invalid_state`…).
 */
export function consoleAnswers(write: boolean, ...answers: ErrorAnswer[]): Record<number, TSchema> {
  return { ...errorResponses(...answers), ...guardedErrors(write) }
}
