// The part of autocannon's API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  export interface Request {
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE'
    path?: string
    headers?: Record<string, string>
    body?: string
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request | null
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
  }

  export interface Options {
    url: string
    connections?: number
    duration?: number
    amount?: number
    pipelining?: number
    timeout?: number
    headers?: Record<string, string>
    requests?: Request[]
    initialContext?: Record<string, unknown>
  }

  export interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    total: number
    p50: number
    p99: number
  }

  export interface Result {
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    resets: number
    '2xx': number
    statusCodeStats: Record<string, { count: number }>
    latency: Histogram
    requests: Histogram & { sent: number }
    throughput: Histogram
  }

  export interface Instance extends EventEmitter {
    stop(): void
  }

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance
  export default autocannon
}
