import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isDatabaseUnavailable } from '../db/errors.js'
import { fieldErrorsFromAjv } from '../http/validation.js'
import {
  AppError,
  ERROR_CODES,
  type ErrorCode,
  NotFoundError,
  ServiceUnavailableError,
  ValidationError,
} from '../shared/errors.js'
import { censorSecrets } from './logging.js'
import { type Language, languageOf, localized } from './messages.js'

export interface ErrorsOptions {
  /**
   * The challenge a 401 carries in `WWW-Authenticate` (RFC 9110 asks for one): the partner API's
   * `Bearer` unless told; the console's cookie session has its own (docs/decisions.md).
   */
  challenge?: string
}

/** The only place that builds error bodies (README, Using the API: errors). */
export const errorsPlugin = fp<ErrorsOptions>(
  async (app, { challenge = 'Bearer' }) => {
    app.setErrorHandler(async (error: FastifyError, request, reply) => {
      await closeIfBodyUnread(request, reply)
      // A request to no route is a 404 whatever its body: bad JSON, too large or not JSON.
      if (request.is404 && (error.statusCode ?? 500) < 500)
        return reply.code(404).send(routeNotFound(request))
      const appError = toAppError(error)
      if (appError) return sendAppError(appError, request, reply, challenge)

      if (isDatabaseUnavailable(error)) {
        request.log.warn({ err: error }, 'database unavailable')
        return sendAppError(new ServiceUnavailableError(), request, reply, challenge)
      }
      request.log.error({ err: error }, 'request failed')
      return reply.code(500).send(serverError(request))
    })

    // Every error answer says its language when it is not English: the bodies above, and those
    // answered elsewhere (a card decline's, a replayed one).
    app.addHook('onSend', async (request, reply, payload) => {
      if (reply.statusCode >= 400 && languageOfRequest(request) === 'pt-BR') {
        reply.header('content-language', 'pt-BR')
      }
      return payload
    })

    app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
      await closeIfBodyUnread(request, reply)
      return reply.code(404).send(routeNotFound(request))
    })
  },
  { name: 'errors' },
)

/**
 * An answer sent before the request's body has fully arrived (a 401, 404, 413 or 429 refuses it
 * unread) closes the connection once sent: Node would otherwise keep reading, and discarding, a
 * body that trickles in for as long as the request deadline allows. Only error answers come
 * early, so only they check. A body that came in the same packets as the headers is parsed once
 * this turn of the event loop ends, hence the wait (only for a body not complete yet; `complete`
 * is undefined under `app.inject`).
 */
export async function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.raw.complete !== false) return
  await new Promise((resolve) => setImmediate(resolve))
  if (!request.raw.complete) reply.header('connection', 'close')
}

/** The language a request's errors are answered in (messages.ts `languageOf`). */
export function languageOfRequest(request: FastifyRequest): Language {
  return languageOf(request.headers['accept-language'])
}

/**
 * An error's body: its code, message, field errors and extras, and the id to quote to support;
 * message and field errors in `language` (README, Using the API: errors in Portuguese).
 */
export function errorBody(error: AppError, requestId: string, language: Language = 'en') {
  return localized(
    {
      code: error.code,
      message: error.message,
      ...(error.errors && { errors: error.errors }),
      ...error.extra,
      request_id: requestId,
    },
    language,
  )
}

/** A server fault's body: the generic message and the id to quote, never the error itself. */
export function serverError(request: FastifyRequest) {
  return errorBody(
    new AppError('server_error', 'Server error.'),
    String(request.id),
    languageOfRequest(request),
  )
}

export function routeNotFound(request: FastifyRequest) {
  const path = censorSecrets(request.url.split('?')[0] ?? '')
  return errorBody(
    new AppError('not_found', `Route ${request.method} ${path} not found.`),
    String(request.id),
    languageOfRequest(request),
  )
}

function sendAppError(error: AppError, request: FastifyRequest, reply: FastifyReply, challenge: string) {
  if (error.statusCode === 401) reply.header('www-authenticate', challenge)
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', error.retryAfterSeconds)
  const language = languageOfRequest(request)
  if (language !== 'en') inEnglish.set(request, errorBody(error, String(request.id)))
  return reply.code(error.statusCode).send(errorBody(error, String(request.id), language))
}

/** The English body of an error answered in another language: the one an Idempotency-Key keeps. */
const inEnglish = new WeakMap<FastifyRequest, object>()

/**
 * The error answer to keep for an Idempotency-Key: in English, whatever language it was answered
 * in, so that a retry gets it in its own (`errorReplayed`).
 */
export function errorToKeep(request: FastifyRequest, payload: string): string {
  const english = inEnglish.get(request)
  return english ? JSON.stringify(english) : payload
}

/**
 * A kept error body as answered to `request`: its `request_id` is this request's, like the
 * X-Request-Id header (README, Safe retries and limits; the logs tie the key to the first
 * request), and its messages in this request's language.
 */
export function errorReplayed(body: string, request: FastifyRequest): string {
  const parsed = JSON.parse(body) as Parameters<typeof localized>[0] & { request_id?: string }
  if (!('request_id' in parsed)) return body
  return JSON.stringify(localized({ ...parsed, request_id: String(request.id) }, languageOfRequest(request)))
}

/** Recognises everything a client can cause; anything else is a server fault. */
function toAppError(error: FastifyError): AppError | null {
  if (error instanceof AppError) return error
  if (error.validation) {
    // A malformed path id cannot name an existing resource.
    if (error.validationContext === 'params') return new NotFoundError()
    return new ValidationError(fieldErrorsFromAjv(error.validation as never, error.validationContext))
  }
  const status = error.statusCode ?? 500
  if (status >= 500) return null
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body must not be larger than 1 MiB.')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'The request body must be sent as application/json.')
  }
  if (status === 400 && (error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP'))) {
    return new AppError('invalid_json', 'The request body is not valid JSON.')
  }
  return new AppError(frameworkCode(status), error.message)
}

/** The code of another 4xx the framework answers: its status's only code, else a plain 400. */
function frameworkCode(status: number): ErrorCode {
  const codes: readonly ErrorCode[] | undefined = ERROR_CODES[status as keyof typeof ERROR_CODES]
  return codes?.length === 1 && codes[0] ? codes[0] : 'bad_request'
}
