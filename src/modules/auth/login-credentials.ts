import type { IncomingHttpHeaders } from 'node:http'
import { fieldErrorsFromAjv, validatorCompiler } from '../../http/validation.js'
import { ValidationError } from '../../shared/errors.js'
import { LoginBody } from './auth.schemas.js'

export type LoginCredentials =
  | { kind: 'client'; clientId: string; clientSecret: string }
  | { kind: 'user'; email: string; password: string }
  /** A credentials header that cannot be decoded: treated as wrong credentials. */
  | { kind: 'malformed' }

/**
 * The four ways the seed shows to log in, in the contract's order of precedence: body client
 * pair, body email/password, `X-CREDENTIALS: base64(id:secret)`, `Authorization: Basic …`.
 */
export function readLoginCredentials(body: LoginBody, headers: IncomingHttpHeaders): LoginCredentials {
  if (body.client_id !== undefined || body.client_secret !== undefined) {
    requireAll({ client_id: body.client_id, client_secret: body.client_secret })
    return { kind: 'client', clientId: body.client_id as string, clientSecret: body.client_secret as string }
  }
  if (body.email !== undefined || body.password !== undefined) {
    requireAll({ email: body.email, password: body.password })
    return { kind: 'user', email: body.email as string, password: body.password as string }
  }
  const header = headers['x-credentials']
  if (typeof header === 'string' && header.trim()) return decodePair(header.trim())
  const basic = /^Basic\s+(\S+)$/i.exec(headers.authorization ?? '')
  if (basic?.[1]) return decodePair(basic[1])
  throw missingFields(['client_id', 'client_secret'])
}

function requireAll(fields: Record<string, string | undefined>): void {
  const missing = Object.keys(fields).filter((k) => fields[k] === undefined || fields[k] === '')
  if (missing.length > 0) throw missingFields(missing)
}

function missingFields(keys: string[]): ValidationError {
  return new ValidationError(
    Object.fromEntries(keys.map((k) => [k, [`The ${k.replace(/_/g, ' ')} field is required.`]])),
  )
}

// Node's base64 decoder skips characters outside the alphabet; only real base64 is accepted.
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/

function decodePair(encoded: string): LoginCredentials {
  if (!BASE64.test(encoded)) return { kind: 'malformed' }
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  // No client id or secret holds a control character (and PostgreSQL cannot even look up a NUL).
  if (colon <= 0 || colon === decoded.length - 1 || /\p{Cc}/u.test(decoded)) return { kind: 'malformed' }
  return { kind: 'client', clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) }
}

// The login route's own body check (schema and validator), so the two cannot drift apart.
const checkLoginBody = validatorCompiler({
  schema: LoginBody,
  method: 'POST',
  url: '/auth/login',
  httpPart: 'body',
}) as ((body: LoginBody) => boolean) & { errors?: Parameters<typeof fieldErrorsFromAjv>[0] | null }

/**
 * Refuses an email and password `POST /auth/login` would answer 422 (past 255 characters, a
 * control character other than tab or a line break), with the login's message: a partner user
 * created with them could never log in.
 */
export function assertLoginAccepts(email: string, password: string): void {
  if (!checkLoginBody({ email, password }))
    throw new ValidationError(fieldErrorsFromAjv(checkLoginBody.errors ?? [], 'body'))
}
