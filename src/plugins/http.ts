import type { Readable } from 'node:stream'
import { errorCodes, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { documentOnWrites, hookList, mayCarryBody } from '../http/route-documentation.js'
import { AppError, type FieldErrors, ValidationError } from '../shared/errors.js'
import { API_HEADERS, COMMON_HEADERS } from './server-options.js'

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Why a JSON body cannot be read as sent (415), or undefined: a charset other than UTF-8, or a
 * Content-Encoding (the service decompresses nothing, and would otherwise answer "not valid JSON").
 */
function unreadableBody(request: FastifyRequest): AppError | undefined {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(request.headers['content-type'] ?? '')?.[1]
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    return new AppError(
      'unsupported_media_type',
      'The request body must be sent as application/json in UTF-8.',
    )
  }
  const encoding = request.headers['content-encoding']
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    return new AppError(
      'unsupported_media_type',
      'The request body must not be compressed: Content-Encoding is not supported.',
    )
  }
  return undefined
}

/** How many Host headers a request carries (`rawHeaders` alternates names and values). */
function hostCount(rawHeaders: string[]): number {
  let count = 0
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === 'host') count += 1
  return count
}

/** JSON only: other content types answer 415, an empty body is no body. */
export const httpPlugin = fp(
  async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-request-id', request.id)
      reply.headers(request.url.startsWith('/docs') ? COMMON_HEADERS : API_HEADERS)
      // Node keeps the first of several Host headers; a proxy before it may have read another
      // (RFC 9112 wants 400).
      if (hostCount(request.raw.rawHeaders) > 1) {
        throw new AppError('bad_request', 'A request must carry one Host header.')
      }
    })

    const timeoutMs = app.config.connections.bodyTimeoutSeconds * 1000
    // `__proto__` and `constructor.prototype` keys are dropped, not refused: the body is valid JSON
    // and unknown fields are ignored (a partner on an older client keeps working), while no prototype can be reached through it.
    const parseJson = app.getDefaultJsonParser('remove', 'remove')
    app.removeAllContentTypeParsers()
    // Bodies are read here rather than by Fastify (see readBody): nothing is read for an unknown
    // route (README, Safe retries and limits), whatever it holds; it answers 404.
    app.addContentTypeParser('application/json', (request, payload, done) => {
      if (request.is404) return done(null, undefined)
      const limit = request.routeOptions.bodyLimit
      const tooLarge = () =>
        new AppError('payload_too_large', `The request body must not be larger than ${sizeLabel(limit)}.`)
      if (Number(request.headers['content-length']) > limit) return done(tooLarge(), undefined)
      readBody(payload, { limit, tooLarge, timeoutMs }, (error, body) => {
        if (error) return done(error, undefined)
        if (body.length === 0) return done(null, undefined)
        const refusal = unreadableBody(request)
        if (refusal) return done(refusal, undefined)
        if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
          return done(
            new AppError(
              'invalid_json',
              `The request body must not nest arrays or objects deeper than ${MAX_JSON_DEPTH} levels.`,
            ),
            undefined,
          )
        }
        let text: string
        try {
          text = UTF8.decode(body)
        } catch {
          // JSON between systems is UTF-8 (RFC 8259 §8.1); decoding other bytes would store U+FFFD
          // in place of what was sent.
          return done(
            new AppError('invalid_json', 'The request body is not valid JSON: it is not UTF-8.'),
            undefined,
          )
        }
        parseJson(request, text, done)
      })
    })
    // Any other type is refused (415) when a body comes with it; an empty one is no body, whatever
    // its label: clients often send a form content type on a body-less POST (notify-payment,
    // login by header, cancellation), and stream-based clients send it chunked, as a bare last chunk.
    app.addContentTypeParser('*', (request, payload, done) => {
      const { 'content-length': length, 'transfer-encoding': chunked } = request.headers
      if (request.is404 || length === '0' || (length === undefined && chunked === undefined))
        return done(null, undefined)
      const refusal = () => new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type'])
      if (length !== undefined) return done(refusal(), undefined)
      // Refused at its first byte; the rest is dropped so the connection can carry on.
      readBody(payload, { limit: 0, tooLarge: refusal, timeoutMs }, (error) => done(error, undefined))
    })

    // Any POST, PUT, PATCH or DELETE may carry a body, even one whose route reads none: invalid
    // JSON, too large, or not JSON at all.
    documentOnWrites(app, [400, 408, 413, 415], undefined, mayCarryBody)

    // Only routes that read a body or a query get the hook below: the others would run it for nothing.
    app.addHook('onRoute', (route) => {
      if (!route.schema?.body && !route.schema?.querystring) return
      const known = listParameters(route.schema.querystring)
      route.preValidation = [
        blankIsAbsent,
        ...(known ? [refuseUnknownParameters(known)] : []),
        ...hookList(route.preValidation),
      ]
    })
  },
  { name: 'http', dependencies: ['context'] },
)

/**
 * The query parameters of a list (a route whose query pages: `per_page` or `limit`), or null for
 * any other route.
 */
function listParameters(schema: unknown): Set<string> | null {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties
  if (!properties || !('per_page' in properties || 'limit' in properties)) return null
  return new Set(Object.keys(properties))
}

/**
 * A list refuses a query parameter it does not know (422, each one named under `errors`), so that
 * a misspelt filter, or `per_page` on a cursor list, is never silently ignored (README, Using the
 * API: pagination).
 */
function refuseUnknownParameters(known: Set<string>) {
  return async (request: FastifyRequest): Promise<void> => {
    const unknown = Object.keys(request.query as object).filter((name) => !known.has(name))
    if (unknown.length === 0) return
    const errors: FieldErrors = {}
    for (const name of unknown) errors[name] = [`The ${name} query parameter is not known.`]
    throw new ValidationError(errors)
  }
}

/**
 * Body-less POSTs (notify-payment, login by header) validate as an empty object. A blank query
 * parameter (`?page=`, `?maxima=`) means none, as clients written for the Laravel service send
 * them (its ConvertEmptyStringsToNull): the default applies, and `abc` still answers 422.
 */
async function blankIsAbsent(request: FastifyRequest): Promise<void> {
  if (request.body === undefined && request.routeOptions.schema?.body) request.body = {}
  const query = request.query as Record<string, unknown>
  for (const key in query) if (query[key] === '') delete query[key]
}

// Reading a body: what the JSON parser above and uploads (upload.ts) share.

/**
 * Reads a body of at most `limit` bytes (else `tooLarge()`) that must arrive within `timeoutMs`
 * of the start of its reading, else 408: without it, a body that never finishes held its
 * connection forever. Past either, what remains is left unread.
 */
export function readBody(
  payload: Readable,
  { limit, tooLarge, timeoutMs }: { limit: number; tooLarge: () => Error; timeoutMs: number },
  done: (error: Error | null, body: Buffer) => void,
): void {
  const chunks: Buffer[] = []
  let received = 0
  const finish = (error: Error | null) => {
    clearTimeout(timer)
    payload.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort)
    done(error, error ? EMPTY : Buffer.concat(chunks, received))
  }
  const onData = (chunk: Buffer) => {
    received += chunk.length
    if (received > limit) return finish(tooLarge())
    chunks.push(chunk)
  }
  const onEnd = () => finish(null)
  // The client went away mid-body: a client error (as Fastify's own reader has it), not a fault to
  // log, though nobody is left to read the answer.
  const onAbort = () => finish(new AppError('bad_request', 'The request body ended before it was complete.'))
  const timer = setTimeout(() => finish(bodyTimedOut(timeoutMs)), timeoutMs)
  payload.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort)
}

const EMPTY = Buffer.alloc(0)

/** 408: a body, JSON or a form (upload.ts), not all there `timeoutMs` after its reading began. */
export const bodyTimedOut = (timeoutMs: number) =>
  new AppError('request_timeout', `The request body did not arrive within ${timeoutMs / 1000} s.`)

/** How deep a JSON body may nest: no request of the API goes past 4 levels. */
export const MAX_JSON_DEPTH = 64

/**
 * Whether a JSON text opens more than `max` arrays or objects inside one another, in one pass over
 * its bytes (brackets inside strings skipped). Parsing and then validating 1 MiB of `[[[…` cost
 * about a second of CPU; this costs about a millisecond, and nothing for a body of usual size.
 */
export function nestsDeeperThan(body: Uint8Array, max: number): boolean {
  // Nesting past `max` takes more than `max` bytes.
  if (body.length <= max) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]
    if (inString) {
      if (byte === BACKSLASH) i++
      else if (byte === QUOTE) inString = false
    } else if (byte === QUOTE) inString = true
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > max) return true
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--
  }
  return false
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

export function sizeLabel(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.ceil(bytes / 1024)} KiB`
}
