import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  path: string
  headers: http.IncomingHttpHeaders
  body: string
  at: number
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void

/**
 * A webhook receiver listening on 127.0.0.1: records every request, and answers as the handler of
 * its path says (200 by default). `hold` keeps a request unanswered until `close`.
 */
export async function startReceiver() {
  const received: Received[] = []
  const handlers = new Map<string, Handler>()
  const held = new Set<http.ServerResponse>()
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const path = request.url ?? '/'
      received.push({ path, headers: request.headers, body, at: Date.now() })
      const handler = handlers.get(path)
      if (handler) handler(request, response, body)
      else response.writeHead(200).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    received,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    on(path: string, handler: Handler) {
      handlers.set(path, handler)
    },
    status(path: string, status: number, headers: Record<string, string> = {}) {
      handlers.set(path, (_req, res) => res.writeHead(status, headers).end())
    },
    hold(path: string) {
      handlers.set(path, (_req, res) => void held.add(res))
    },
    at: (path: string) => received.filter((r) => r.path === path),
    async close() {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>
