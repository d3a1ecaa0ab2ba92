import { randomUUID } from 'node:crypto'
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import {
  errorCodes,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.js'
import { documentOnWrites, hookList, mayCarryBody } from '../http/route-documentation.js'
import { AppError } from '../shared/errors.js'
import { MAX_JSON_DEPTH, nestsDeeperThan, readBody, sizeLabel } from './body-reader.js'
import { errorBody, routeNotFound, serverError } from './errors.js'
import { lazyRequestLogger, OneLineRequestLog } from './logging.js'
import { languageOf } from './messages.js'

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
// 13 digits in a row could be a card number, and so could 13 spelt with separators
// (`4111-1111-1111-1111`, `4111.1111…`) when they stand apart from letters and other digits: such
// an id would be logged past the card masking. (A UUID's `a165-70867728950e` is not one.)
const LONG_DIGIT_RUN = /\d{13}|(?<![A-Za-z0-9])\d(?:[._: -]*\d){12,}(?![A-Za-z0-9])/

/**
 * Echoes the caller's X-Request-Id when it is sane (README, Using the API: errors), so both sides can trace one
 * call; otherwise a new UUID.
 */
export function requestId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id']
  const sane = typeof sent === 'string' && SANE_REQUEST_ID.test(sent) && !LONG_DIGIT_RUN.test(sent)
  return sane ? sent : randomUUID()
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

/** JSON only: other content types answer 415, an empty body is no body. */
export const httpPlugin = fp(
  async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-request-id', request.id)
      reply.headers(request.url.startsWith('/docs') ? COMMON_HEADERS : API_HEADERS)
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
      if (route.schema?.body || route.schema?.querystring)
        route.preValidation = [blankIsAbsent, ...hookList(route.preValidation)]
    })
  },
  { name: 'http', dependencies: ['context'] },
)

export const BODY_LIMIT = 1024 * 1024

/**
 * The server options the partner API and the operator console share: request ids, one-line
 * request logs, our error bodies for what the router or Node's parser refuses, the body limit,
 * the proxies trusted and the deadlines of slow clients.
 */
export function serverOptions(config: Readonly<Config>, logger: FastifyServerOptions['logger']) {
  return {
    logger,
    genReqId: requestId,
    logController: new OneLineRequestLog(),
    childLoggerFactory: lazyRequestLogger,
    frameworkErrors,
    clientErrorHandler: clientErrors,
    rewriteUrl: originForm,
    bodyLimit: BODY_LIMIT,
    // Draining on SIGTERM: a request that arrives on a kept-alive connection is still served (with
    // `Connection: close`), not refused with a bare 503; new connections are refused.
    return503OnClosing: false,
    // `/subscriptions/1/` is `/subscriptions/1`, as on the Laravel service partners wrote against.
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: true },
    // Behind the README's load balancer: request.ip (login rate limits) is the client's, not its.
    trustProxy: config.trustProxy,
    ...connectionTimeouts(config.connections),
  }
}

/**
 * Fastify's server options for slow and idle clients (README, Safe retries and limits). Node's own deadline for a
 * whole request backs up readBody's: it also covers a body sent to a route that reads none. Node
 * checks its deadlines every second (30 s by default, which would double them).
 */
function connectionTimeouts(connections: Config['connections']) {
  const headersTimeout = connections.headersTimeoutSeconds * 1000
  const requestTimeout = headersTimeout + connections.bodyTimeoutSeconds * 1000
  return {
    // Node closes an idle connection 1 s after the keep-alive timeout it advertises (so that a
    // client never reuses one the server is closing): the setting is when it closes.
    keepAliveTimeout: (connections.keepAliveTimeoutSeconds - 1) * 1000,
    requestTimeout,
    http: { headersTimeout, requestTimeout, connectionsCheckingInterval: 1000 },
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
    return reply.code(500).send(serverError(request))
  }
  return reply.code(404).send(routeNotFound(request))
}

/**
 * Fastify's `rewriteUrl`: a request line in absolute form (`GET http://host/brands`, as sent through
 * a forward proxy; servers must accept it, RFC 9112 §3.2.2) is read as its path and query, so that
 * links, logs and idempotency fingerprints see `/brands` as for any other request.
 */
export function originForm(req: IncomingMessage): string {
  const url = req.url ?? '/'
  if (url.startsWith('/') || !URL.canParse(url)) return url
  const { pathname, search } = new URL(url)
  return `${pathname}${search}`
}

/**
 * Node's `checkExpectation`: an `Expect` other than `100-continue` is refused (417) before Fastify
 * sees the request; without this listener Node answers it bare, with no body or request id.
 */
export function expectationFailed(req: IncomingMessage, res: ServerResponse): void {
  const id = requestId(req)
  const error = new AppError('expectation_failed', 'Only "Expect: 100-continue" is supported.')
  const language = languageOf(req.headers['accept-language'])
  const body = JSON.stringify(errorBody(error, id, language))
  res.writeHead(417, {
    ...(language === 'pt-BR' && { 'content-language': language }),
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': id,
    ...API_HEADERS,
  })
  res.end(body)
}

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses before Fastify sees it (headers
 * over 16 KB, a malformed request line, a timeout) gets the contract's `{message}` body and the
 * usual headers with a fresh X-Request-Id, instead of Fastify's `{error, message, statusCode}`.
 */
export function clientErrors(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const answer =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new AppError('request_timeout', 'Request timeout.')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError(
            'headers_too_large',
            'Request header fields too large (at most 16 KB, the URL included).',
          )
        : new AppError('bad_request', 'Malformed HTTP request.')
  const status = answer.statusCode
  const id = randomUUID()
  const language = languageOf(acceptLanguageIn(error.rawPacket))
  const body = JSON.stringify(errorBody(answer, id, language))
  const headers = {
    ...(language === 'pt-BR' && { 'content-language': language }),
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': id,
    ...API_HEADERS,
    connection: 'close',
  }
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
  if (socket.writable)
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n${body}`)
  socket.destroy(error)
}

/**
 * The Accept-Language of a request Node's parser refused, read from the bytes it was refusing (no
 * header was parsed): present when the header came in the same packet as the fault.
 */
function acceptLanguageIn(packet: unknown): string | undefined {
  if (!Buffer.isBuffer(packet)) return undefined
  return /\r\naccept-language:[ \t]*([^\r\n]*)/i.exec(packet.toString('latin1'))?.[1]
}
