import type { FastifyRequest } from 'fastify'

/**
 * The service's public base address: AMPARO_PUBLIC_URL when set (behind a proxy), else the
 * address the request was sent to.
 */
export function baseUrl(request: FastifyRequest): string {
  const configured = request.server.config.publicUrl
  return configured || `${request.protocol}://${request.host}`
}

/** The absolute address of the request's path, without query: a list's `meta.path`. */
export function requestPath(request: FastifyRequest): string {
  return `${baseUrl(request)}${request.url.split('?')[0]}`
}
