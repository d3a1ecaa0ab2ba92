import autocannon, { type Request, type Result } from 'autocannon'
import type { PartnerData } from './seed.js'

// The scenarios, and the autocannon runs that drive them.

export interface Session {
  partner: PartnerData
  token: string
}

export type ScenarioId = 'a' | 'b' | 'c' | 'd'
export const TITLES: Record<ScenarioId, string> = {
  a: 'GET /subscriptions/{id}',
  b: 'GET /subscriptions, a page of 15',
  c: 'GET /quotation',
  d: 'POST /subscriptions',
}

/** One request of a scenario: what autocannon sends, and what the floor records in-process. */
export interface Call {
  method: 'GET' | 'POST'
  path: string
  session: Session
  body?: string
}

const int = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1))
const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)] as T

/** The scenarios as request makers over the sessions' partners. */
export function makers(sessions: Session[]): Record<ScenarioId, () => Call> {
  return {
    a: () => {
      const session = pick(sessions)
      return {
        method: 'GET',
        path: `/subscriptions/${int(session.partner.firstId, session.partner.lastId)}`,
        session,
      }
    },
    b: () => {
      const session = pick(sessions)
      const page = int(1, Math.max(1, Math.ceil(session.partner.subscriptions / 15)))
      return { method: 'GET', path: `/subscriptions?page=${page}&per_page=15`, session }
    },
    c: () => {
      const session = pick(sessions)
      const model = pick(session.partner.models)
      const maxima = Math.random() < 0.5 ? `&maxima=${(model.defaultLmi * 0.008).toFixed(2)}` : ''
      return { method: 'GET', path: `/quotation?model_id=${model.id}${maxima}`, session }
    },
    d: () => {
      const session = pick(sessions)
      const { planIds, customerIds, models } = session.partner
      const body = JSON.stringify({
        plan_id: pick(planIds),
        customer_id: pick(customerIds),
        model_id: pick(models).id,
        serial_number: String(int(1e14, 9e14)),
        is_used: Math.random() < 0.15,
        metadata: { origin: `pdv-${int(1, 40)}` },
      })
      return { method: 'POST', path: '/subscriptions', session, body }
    },
  }
}

/** What autocannon sends for a maker: a new call for every request. */
export const requestsOf = (make: () => Call): Request[] => [
  {
    setupRequest: (req) => {
      const { method, path, session, body } = make()
      const headers = { accept: 'application/json', authorization: `Bearer ${session.token}` }
      return body
        ? { ...req, method, path, body, headers: { ...headers, 'content-type': 'application/json' } }
        : { ...req, method, path, headers }
    },
  },
]

export interface Measurement {
  seconds: number
  /** Responses of every status, the settling included: what the server's CPU served. */
  responses: number
  /** Latencies of the 2xx responses, ms. */
  latencies: number[]
  /** Non-2xx responses, errors and timeouts, as text. */
  problems: string[]
  /** CPU of the server (and its PostgreSQL backends), µs; set by the caller. */
  cpuUs: number
}

/**
 * `connections` connections for `seconds`, after 0.5 s on the same connections that are neither
 * counted nor timed: the first requests on new connections are slow enough to move a short run's p99.
 */
export async function runLoad(options: {
  port: number
  connections: number
  seconds: number
  requests: Request[]
  timeoutS: number
}): Promise<Measurement> {
  const m: Measurement = { seconds: 0, responses: 0, latencies: [], problems: [], cpuUs: 0 }
  const statuses: Record<string, number> = {}
  const started = performance.now() + 500
  const result = await new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${options.port}`,
        connections: options.connections,
        duration: options.seconds + 0.5,
        timeout: options.timeoutS,
        requests: options.requests,
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    )
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      m.responses += 1
      if (performance.now() - ms < started) return
      if (status >= 200 && status < 300) m.latencies.push(ms)
      else statuses[status] = (statuses[status] ?? 0) + 1
    })
  })
  m.seconds = (performance.now() - started) / 1000
  m.problems = Object.entries(statuses).map(([code, n]) => `${n}×${code}`)
  if (result.errors) m.problems.push(`${result.errors} errors`)
  if (result.timeouts) m.problems.push(`${result.timeouts} timeouts`)
  return m
}

/** Several measurements as one: CPU µs a response, 2xx a second, percentiles of the latencies. */
export function summary(runs: Measurement[]) {
  const sum = (f: (m: Measurement) => number) => runs.reduce((s, m) => s + f(m), 0)
  const latencies = runs.flatMap((m) => m.latencies).sort((a, b) => a - b)
  const p = (q: number) => latencies[Math.max(0, Math.ceil((q / 100) * latencies.length) - 1)] ?? Number.NaN
  return {
    us:
      sum((m) => m.cpuUs) /
      Math.max(
        1,
        sum((m) => m.responses),
      ),
    rps: latencies.length / sum((m) => m.seconds),
    p50: p(50),
    p99: p(99),
    problems: runs.flatMap((m) => m.problems).join(', '),
  }
}
