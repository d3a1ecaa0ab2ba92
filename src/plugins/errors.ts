import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isDatabaseUnavailable } from '../db/errors.js'
import { fieldErrorsFromAjv } from '../http/validation.js'
import { AppError, ServiceUnavailableError, ValidationError } from '../shared/errors.js'
import { censorSecrets } from './logging.js'

/** The only place that builds error bodies (CONTRACT §2). */
export const errorsPlugin = fp(
  async (app) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      // A request to no route is a 404 whatever its body: bad JSON, too large or not JSON.
      if (request.is404 && (error.statusCode ?? 500) < 500)
        return reply.code(404).send(routeNotFound(request))
      const appError = toAppError(error)
      if (appError) return sendAppError(appError, request, reply)

      if (isDatabaseUnavailable(error)) {
        request.log.warn({ err: error }, 'database unavailable')
        return sendAppError(new ServiceUnavailableError(), request, reply)
      }
      request.log.error({ err: error }, 'request failed')
      return reply.code(500).send(serverError(request))
    })

    app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) =>
      reply.code(404).send(routeNotFound(request)),
    )
  },
  { name: 'errors' },
)

/** A server fault's body: the generic message and the id to quote, never the error itself. */
export function serverError(request: FastifyRequest) {
  return { message: 'Server error.', request_id: String(request.id) }
}

export function routeNotFound(request: FastifyRequest) {
  return { message: `Route ${request.method} ${censorSecrets(request.url.split('?')[0] ?? '')} not found.` }
}

function sendAppError(error: AppError, request: FastifyRequest, reply: FastifyReply) {
  if (error.statusCode === 401) reply.header('www-authenticate', 'Bearer')
  if (error instanceof ServiceUnavailableError) reply.header('retry-after', error.retryAfterSeconds)
  const body = {
    message: error.message,
    ...(error.errors && { errors: error.errors }),
    ...error.extra,
    ...(error.statusCode >= 500 && { request_id: String(request.id) }),
  }
  return reply.code(error.statusCode).send(body)
}

/** Recognises everything a client can cause; anything else is a server fault. */
function toAppError(error: FastifyError): AppError | null {
  if (error instanceof AppError) return error
  if (error.validation) {
    // A malformed path id cannot name an existing resource.
    if (error.validationContext === 'params') return new AppError(404, 'Resource not found.')
    return new ValidationError(fieldErrorsFromAjv(error.validation as never, error.validationContext))
  }
  const status = error.statusCode ?? 500
  if (status >= 500) return null
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'The request body must not be larger than 1 MiB.')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'The request body must be sent as application/json.')
  }
  if (status === 400 && (error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP'))) {
    return new AppError(400, 'The request body is not valid JSON.')
  }
  return new AppError(status, error.message)
}
