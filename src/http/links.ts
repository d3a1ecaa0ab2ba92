import type { FastifyRequest } from 'fastify'
import { buildPage, type Page, type PageParams, pageOffset } from '../shared/pagination.js'

// A host name or IPv4 address, or a bracketed IPv6 one, with an optional port (RFC 3986's
// authority without user info): anything else would make every link of the answer malformed.
const SANE_HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/

/**
 * The service's public base address: AMPARO_PUBLIC_URL when set (behind a proxy; production
 * should set it, since otherwise links repeat whatever well-formed Host the client sent), else
 * the address the request was sent to — its Host when well formed, or else (an HTTP/1.0 request
 * without one, `Host: a b`) the address and port it reached: never `http:///models/1`.
 */
export function baseUrl(request: FastifyRequest): string {
  const configured = request.server.config.publicUrl
  if (configured) return configured
  const host = request.host
  return `${request.protocol}://${host && SANE_HOST.test(host) ? host : reachedAddress(request)}`
}

function reachedAddress({ socket }: FastifyRequest): string {
  const address = socket.localAddress ?? '127.0.0.1'
  const port = socket.localPort ? `:${socket.localPort}` : ''
  return `${address.includes(':') ? `[${address}]` : address}${port}`
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

/**
 * A list route's answer: `list` reads the rows of the page the query asks for (`page`, `per_page`)
 * and their total; each row becomes an item with its links under the request's base address.
 */
export async function listPage<Row, Item>(
  request: FastifyRequest,
  query: { page: number; per_page: number },
  list: (offset: number, limit: number) => Promise<{ rows: Row[]; total: number }>,
  toItem: (row: Row, base: string) => Item,
): Promise<Page<Item>> {
  const page = { page: query.page, perPage: query.per_page }
  const { rows, total } = await list(pageOffset(page), page.perPage)
  const base = baseUrl(request)
  return pageFor(
    request,
    rows.map((row) => toItem(row, base)),
    total,
    page,
  )
}
