import { randomUUID } from 'node:crypto'
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import type { Config } from '../config.js'
import { isLuhnValid } from '../shared/documents.js'
import { AppError } from '../shared/errors.js'
import { errorBody, routeNotFound, serverError } from './errors.js'
import { lazyRequestLogger, OneLineRequestLog } from './logging.js'
import { languageOf } from './messages.js'

// What the partner API's and the console's servers do before a route is found: request ids, the
// headers every answer carries, the deadlines of slow clients, and our error bodies for what the
// router or Node's parser refuses. The JSON bodies themselves: http.ts.

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
// 13 digits or more in a row, or spelt with separators (`4111-1111-1111-1111`, `4111.1111…`) when
// they stand apart from letters and other digits, could be a card number, which would be logged
// past the card masking: such a run of 13 to 19 digits passing the Luhn check, or a longer one
// (where a card could start anywhere), is one. (A UUID's `a165-70867728950e` stands beside letters;
// a dated `order-2026-12-07-000123456` fails the check.)
const LONG_DIGIT_RUNS = /\d{13,}|(?<![A-Za-z0-9])\d(?:[._: -]*\d){12,}(?![A-Za-z0-9])/g

function holdsCardNumber(id: string): boolean {
  return [...id.matchAll(LONG_DIGIT_RUNS)].some(([run]) => {
    const digits = run.replace(/\D/g, '')
    return digits.length > 19 || isLuhnValid(digits)
  })
}

/**
 * Echoes the caller's X-Request-Id when it is sane (README, Using the API: errors), so both sides can trace one
 * call; otherwise a new UUID.
 */
export function requestId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id']
  const sane = typeof sent === 'string' && SANE_REQUEST_ID.test(sent) && !holdsCardNumber(sent)
  return sane ? sent : randomUUID()
}

// Headers for a JSON API (OWASP secure headers): nothing to sniff, frame, cache or refer.
// The reference UI at /docs sets its own Content-Security-Policy, since it runs scripts.
export const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'cross-origin-resource-policy': 'same-origin',
}
export const API_HEADERS = {
  ...COMMON_HEADERS,
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
}

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
