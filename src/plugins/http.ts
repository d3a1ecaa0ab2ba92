import { randomUUID } from 'node:crypto'
import { type IncomingMessage, STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { errorCodes, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { documentOnWrites } from '../shared/http-schemas.js'
import { routeNotFound } from './errors.js'

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Echoes the caller's X-Request-Id when it is sane, so both sides can trace one call. */
export function requestId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id']
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID()
}

// Headers for a JSON API (OWASP secure headers): nothing to sniff, frame, cache or refer.
// The reference UI at /docs sets its own Content-Security-Policy, since it runs scripts.
const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'cross-origin-resource-policy': 'same-origin',
}
const API_HEADERS = {
  ...COMMON_HEADERS,
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
}

/** JSON only: other content types answer 415, an empty body is no body. */
export const httpPlugin = fp(
  async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-request-id', request.id)
      reply.headers(request.url.startsWith('/docs') ? COMMON_HEADERS : API_HEADERS)
    })

    // `__proto__` and `constructor.prototype` keys are dropped, not refused: the body is valid JSON
    // and unknown fields are ignored (CONTRACT §1), while no prototype can be reached through it.
    const parseJson = app.getDefaultJsonParser('remove', 'remove')
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (body === '') return done(null, undefined)
      parseJson(request, body as string, done)
    })
    // Any other type is refused (415) when a body comes with it; an empty one is no body, whatever
    // its label: clients often send a form content type on a body-less POST (notify-payment,
    // login by header, cancellation).
    app.addContentTypeParser('*', (request, _payload, done) => {
      const { 'content-length': length, 'transfer-encoding': chunked } = request.headers
      if (length === '0' || (length === undefined && chunked === undefined)) return done(null, undefined)
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']), undefined)
    })

    // Any POST or PUT may carry a body, even one whose route reads none: invalid JSON, too large,
    // or not JSON at all.
    documentOnWrites(app, [400, 413, 415])

    // Body-less POSTs (notify-payment, login by header) validate as an empty object. A blank query
    // parameter (`?page=`, `?maxima=`) means none, as clients written for the Laravel service send
    // them (its ConvertEmptyStringsToNull): the default applies, and `abc` still answers 422.
    app.addHook('preValidation', async (request) => {
      if (request.body === undefined && request.routeOptions.schema?.body) request.body = {}
      const query = request.query as Record<string, unknown>
      for (const key in query) if (query[key] === '') delete query[key]
    })
  },
  { name: 'http' },
)

/**
 * Fastify's `frameworkErrors`: a path the router cannot read — bad percent-encoding (`/brands/%`)
 * or a parameter longer than maxParamLength — would otherwise get Fastify's own 400/414 body,
 * skipping our hooks and error handler. Such a path names no resource: 404 `{message}` with the
 * usual headers, as for any unknown route.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id).headers(API_HEADERS)
  if (error.code !== 'FST_ERR_BAD_URL' && error.code !== 'FST_ERR_MAX_PARAM_LENGTH') {
    request.log.error({ err: error }, 'request failed')
    return reply.code(500).send({ message: 'Server error.', request_id: String(request.id) })
  }
  return reply.code(404).send(routeNotFound(request))
}

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses before Fastify sees it (headers
 * over 16 KB, a malformed request line, a timeout) gets the contract's `{message}` body and the
 * usual headers with a fresh X-Request-Id, instead of Fastify's `{error, message, statusCode}`.
 */
export function clientErrors(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request timeout.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request header fields too large (at most 16 KB, the URL included).']
        : [400, 'Malformed HTTP request.']
  const body = JSON.stringify({ message })
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': randomUUID(),
    ...API_HEADERS,
    connection: 'close',
  }
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
  if (socket.writable)
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n${body}`)
  socket.destroy(error)
}
