import type { FastifyRequest } from 'fastify'
import { buildPage, type Page, type PageParams } from './pagination.js'

/**
 * The service's public base address: AMPARO_PUBLIC_URL when set (behind a proxy), else the
 * address the request was sent to — its Host, or for an HTTP/1.0 request without one, the address
 * and port it reached (else links would read `http:///models/1`).
 */
export function baseUrl(request: FastifyRequest): string {
  const configured = request.server.config.publicUrl
  return configured || `${request.protocol}://${request.host || reachedAddress(request)}`
}

function reachedAddress({ socket }: FastifyRequest): string {
  const address = socket.localAddress ?? '127.0.0.1'
  return `${address.includes(':') ? `[${address}]` : address}:${socket.localPort}`
}

/** The absolute address of the request's path, without query: a list's `meta.path`. */
export function requestPath(request: FastifyRequest): string {
  return `${baseUrl(request)}${request.url.split('?')[0]}`
}

/**
 * The Laravel page of `data` for this request. Its links keep the query parameters the client
 * sent, as sent — not the defaults validation filled in (`per_page=15` it never wrote).
 */
export function pageFor<T>(request: FastifyRequest, data: T[], total: number, page: PageParams): Page<T> {
  const sent = new URLSearchParams(request.url.split('?')[1] ?? '')
  const query = Object.fromEntries([...sent.keys()].map((key) => [key, sent.getAll(key)]))
  return buildPage(data, total, page, requestPath(request), query)
}
