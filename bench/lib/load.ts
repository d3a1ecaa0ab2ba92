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
  d: 'POST /subscriptions, customer by document, 12 installments',
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
      const { planIds, documents, models } = session.partner
      const body = JSON.stringify({
        plan_id: pick(planIds),
        customer_document: pick(documents),
        model_id: pick(models).id,
        serial_number: String(int(1e14, 9e14)),
        is_used: Math.random() < 0.15,
        metadata: { origin: `pdv-${int(1, 40)}` },
      })
      return { method: 'POST', path: '/subscriptions', session, body }
    },
  }
}

/** A request to the API on `port` (a body: POST; `''`, POST without one); status, JSON and its start. */
export async function call(port: number, path: string, token?: string | null, body?: object | string) {
  const payload = typeof body === 'object' ? JSON.stringify(body) : body || undefined
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      accept: 'application/json',
      ...(payload && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body: payload,
    signal: AbortSignal.timeout(600_000),
  })
  const text = await response.text()
  // biome-ignore lint/suspicious/noExplicitAny: JSON of several shapes, checked by the callers
  const json: any = /^[[{]/.test(text) ? JSON.parse(text) : {}
  return { status: response.status, text: text.slice(0, 300), json }
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`sanity check failed: ${message}`)
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
  return {
    us:
      sum((m) => m.cpuUs) /
      Math.max(
        1,
        sum((m) => m.responses),
      ),
    rps: latencies.length / sum((m) => m.seconds),
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    problems: runs.flatMap((m) => m.problems).join(', '),
  }
}
export type Summary = ReturnType<typeof summary>

export const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN

/** A figure as the tables print it (thousands separated); blank when not a number. */
export const f = (n: number | undefined, digits = 0) =>
  n === undefined || !Number.isFinite(n)
    ? ''
    : n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** A verdict line: `ok …` or `FAIL …`. */
export const verdict = (met: boolean, text: string) => `${met ? 'ok' : 'FAIL'} ${text}`

export interface Row {
  name: string
  runs: Measurement[]
  floorUs?: number
  statements?: number
  verdicts: string[]
}

/** The scenarios' table; `baseUs` (the bare server's CPU a request) gives the ÷ base column. */
export function table(rows: Row[], baseUs = Number.NaN): string {
  const lines = rows.map((row) => {
    const s = summary(row.runs)
    const floor = row.floorUs
    return `| ${[
      row.name,
      f(s.rps),
      f(s.p50, 2),
      f(s.p99, 2),
      f(s.us),
      floor === undefined ? '' : `${f(floor)} (${row.statements} st.)`,
      row.name.startsWith('base') ? '' : f(baseUs / s.us, 2),
      floor === undefined ? '' : f(floor / s.us, 2),
      [s.problems && `INVALID: ${s.problems}`, ...row.verdicts].filter(Boolean).join('; '),
    ].join(' | ')} |`
  })
  const head =
    '| scenario | req/s | p50 ms | p99 ms | CPU µs/req | floor µs/req | ÷ base | ÷ floor | verdicts |'
  return [head, `|${' --- |'.repeat(9)}`, ...lines].join('\n')
}
