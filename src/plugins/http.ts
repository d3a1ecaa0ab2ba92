import { errorCodes, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { documentOnWrites, hookList, mayCarryBody } from '../http/route-documentation.js'
import { AppError, type FieldErrors, ValidationError } from '../shared/errors.js'
import { MAX_JSON_DEPTH, nestsDeeperThan, readBody, sizeLabel } from './body-reader.js'
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
