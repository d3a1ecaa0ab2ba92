import { type TSchema, Type } from 'typebox'
import { CONSOLE_ERROR_CODES, type ConsoleErrorCode, ERROR_CODES, type ErrorCode } from '../shared/errors.js'

type AnyCode = ErrorCode | ConsoleErrorCode

/**
 * The console document's `Error`: the partner API's shape, with the console's own codes too
 * (`invalid_credentials`, `forbidden`, `origin_refused`). Registered by $id on the console app in
 * place of the partner one, so the shared error helpers reference it.
 */
export const ConsoleErrorSchema = Type.Object(
  {
    code: Type.String({
      enum: [...Object.values(ERROR_CODES).flat(), ...Object.values(CONSOLE_ERROR_CODES).flat()],
      description: 'Stable, machine-readable: branch on it.',
    }),
    message: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
    request_id: Type.String({ description: 'The `X-Request-Id` of this response.' }),
  },
  { $id: 'Error', description: 'Error.' },
)

/** A response entry for one error status of a console route, listing the codes it can answer. */
export function consoleError(description: string, ...codes: AnyCode[]): TSchema {
  return Type.Unsafe({
    description,
    allOf: [
      Type.Ref('Error'),
      { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: codes } } },
    ],
  })
}

/**
 * The errors every console route with `config.role` can answer: 401 without a live session, 403
 * for a role too low, a one-time password not yet replaced or (writes) another origin; plus 500 and 503.
 */
export function guardedErrors(write: boolean): Record<number, TSchema> {
  return {
    401: consoleError('Not signed in, or the session ended (30 min idle, 12 h at most).', 'unauthenticated'),
    403: write
      ? consoleError(
          'The role is too low, the one-time password is still to be replaced, or the request came from another origin.',
          'forbidden',
          'password_change_required',
          'origin_refused',
        )
      : consoleError(
          'The role is too low, or the one-time password is still to be replaced.',
          'forbidden',
          'password_change_required',
        ),
    500: consoleError('Server fault; quote `request_id`.', 'server_error'),
    503: consoleError('The database is unreachable for a moment.', 'service_unavailable'),
  }
}

/** A CSV download's answer (README, Operator console: exports): Excel pt-BR's dialect, as an attachment. */
export function csvAnswer(filename: string, columns: readonly string[]): TSchema {
  return Type.Unsafe<string>({
    description: `CSV for Excel set to pt-BR: UTF-8 with a byte-order mark, \`;\` between cells, CRLF, money as \`1234,56\`, times as \`dd/mm/aaaa hh:mm\` in the service's zone; a cell starting with \`=\`, \`+\`, \`-\`, \`@\`, tab or CR is prefixed with \`'\`. Columns: ${columns.join(', ')}.`,
    content: { 'text/csv': { schema: { type: 'string', format: 'binary' } } },
    headers: {
      'Content-Disposition': { type: 'string', description: `\`attachment; filename="${filename}"\`.` },
    },
  })
}
