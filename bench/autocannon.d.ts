// The part of autocannon's API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  export interface Request {
    method?: 'GET' | 'POST'
    path?: string
    headers?: Record<string, string>
    body?: string
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request | null
  }

  export default function autocannon(options: {
    url: string
    connections: number
    duration: number
    timeout: number
    requests: Request[]
  }): EventEmitter & PromiseLike<{ errors: number; timeouts: number }>
}
