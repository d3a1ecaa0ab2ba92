import autocannon, { type Request } from 'autocannon'
import type { PartnerData } from './seed.js'

// The scenarios, the autocannon runs that drive them, and what every mode prints.

export type Session = { partner: PartnerData; token: string }
/** What run.ts gives a mode: the built CLI, the service's environment, its processes' log. */
export type Bench = { cli: string; env: NodeJS.ProcessEnv; logFile: string }
/** One request of a scenario (`headers`: beside the session's token, e.g. a signature). */
export type Call = {
  method: 'GET' | 'POST'
  path: string
  session: Session
  body?: string
  headers?: Record<string, string>
}

export const log = (line = '') => process.stdout.write(`${line}\n`)

export const TITLES = {
  a: '(a) GET /subscriptions/{id}',
  b: '(b) GET /subscriptions, a page of 15',
  c: '(c) GET /quotation',
  d: '(d) POST /subscriptions, customer by document, 12 installments',
}
export type ScenarioId = keyof typeof TITLES

const int = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1))
export const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)] as T

/** Requests of a random session: GET `path`, or POST it the partner's `body` as JSON. */
export const maker =
  (sessions: Session[], path: string | ((p: PartnerData) => string), body?: (p: PartnerData) => object) =>
  (): Call => {
    const session = pick(sessions)
    const json = body && JSON.stringify(body(session.partner))
    const to = typeof path === 'string' ? path : path(session.partner)
    return { method: json ? 'POST' : 'GET', path: to, session, body: json }
  }

/** The scenarios over the sessions' partners. */
export const makers = (sessions: Session[]): Record<ScenarioId, () => Call> => ({
  a: maker(sessions, (p) => `/subscriptions/${int(p.firstId, p.lastId)}`),
  b: maker(sessions, (p) => `/subscriptions?page=${int(1, Math.ceil(p.subscriptions / 15))}&per_page=15`),
  c: maker(sessions, (p) => {
    const model = pick(p.models)
    const maxima = Math.random() < 0.5 ? `&maxima=${(model.defaultLmi * 0.008).toFixed(2)}` : ''
    return `/quotation?model_id=${model.id}${maxima}`
  }),
  d: maker(sessions, '/subscriptions', (p) => ({
    plan_id: pick(p.planIds),
    customer_document: pick(p.documents),
    model_id: pick(p.models).id,
    serial_number: String(int(1e14, 9e14)),
    is_used: Math.random() < 0.15,
    metadata: { origin: `pdv-${int(1, 40)}` },
  })),
})

/**
 * A request to the API on `port` (a body: POST; `''`, POST without one): its status, text and JSON.
 * With `expected`, any other status fails the run.
 */
export async function call(
  port: number,
  path: string,
  token?: string,
  body?: object | string,
  expected?: number,
  headers?: Record<string, string>,
) {
  const payload = typeof body === 'object' ? JSON.stringify(body) : body || undefined
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      accept: 'application/json',
      ...(payload && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: payload,
    signal: AbortSignal.timeout(600_000),
  })
  const [status, text] = [response.status, await response.text()]
  check(expected === undefined || status === expected, `${path}: ${status} ${text.slice(0, 300)}`)
  // biome-ignore lint/suspicious/noExplicitAny: JSON of several shapes, checked by the callers
  const json: any = /^[[{]/.test(text) ? JSON.parse(text) : {}
  return { status, text: text.slice(0, 300), json }
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`sanity check failed: ${message}`)
}

/**
 * `connections` connections for `seconds` of `make`'s requests, after 0.5 s on the same connections
 * that are neither counted nor timed: the first requests on new connections are slow enough to move a
 * short run's p99. `responses` counts every status, the settling included: what the server's CPU
 * served; `latencies` are the 2xx's; `cpuUs`, the server's (and its PostgreSQL backends'), is the caller's.
 */
export async function runLoad(port: number, connections: number, make: () => Call, seconds: number) {
  const m = { seconds: 0, responses: 0, latencies: [] as number[], problems: [] as string[], cpuUs: 0 }
  const setupRequest = (req: Request): Request => {
    const { method, path, session, body, headers: extra } = make()
    const headers = { accept: 'application/json', authorization: `Bearer ${session.token}`, ...extra }
    return body
      ? { ...req, method, path, body, headers: { ...headers, 'content-type': 'application/json' } }
      : { ...req, method, path, headers }
  }
  const statuses: Record<string, number> = {}
  const started = performance.now() + 500
  const url = `http://127.0.0.1:${port}`
  const requests = [{ setupRequest }]
  // A request's timeout: --scale's pages of 1,000,000 rows may wait long behind 50 connections.
  const running = autocannon({ url, connections, requests, duration: seconds + 0.5, timeout: 120 })
  running.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    m.responses += 1
    if (performance.now() - ms < started) return
    if (status >= 200 && status < 300) m.latencies.push(ms)
    else statuses[status] = (statuses[status] ?? 0) + 1
  })
  const result = await running
  m.seconds = (performance.now() - started) / 1000
  m.problems = Object.entries(statuses).map(([code, n]) => `${n}×${code}`)
  if (result.errors) m.problems.push(`${result.errors} errors`)
  if (result.timeouts) m.problems.push(`${result.timeouts} timeouts`)
  return m
}
export type Measurement = Awaited<ReturnType<typeof runLoad>>

const MAX_IN_FLIGHT = 200

/**
 * Open loop: `make`'s requests sent at a constant `rate` a second for `seconds`, whatever the answers
 * (autocannon's --overallRate sends each connection's quota back to back at the top of each second:
 * bursts, not arrivals). A latency runs from the moment a request was due, so a late send counts.
 * Past `MAX_IN_FLIGHT` unanswered, a due request is not sent but counted: the server is not keeping
 * up, and a backlog without end would only take its memory.
 */
export async function runAtRate(port: number, make: () => Call, rate: number, seconds: number) {
  const m = { seconds, responses: 0, latencies: [] as number[], problems: [] as string[], cpuUs: 0 }
  const statuses: Record<string, number> = {}
  const pending: Promise<void>[] = []
  let inFlight = 0
  const send = async (due: number) => {
    if (inFlight >= MAX_IN_FLIGHT) {
      statuses['not sent'] = (statuses['not sent'] ?? 0) + 1
      return
    }
    inFlight += 1
    const { path, session, body, headers } = make()
    try {
      const { status } = await call(port, path, session.token, body, undefined, headers)
      m.responses += 1
      if (status >= 200 && status < 300) m.latencies.push(performance.now() - due)
      else statuses[status] = (statuses[status] ?? 0) + 1
    } catch (error) {
      // fetch's own error says little; its cause names it (ECONNRESET, UND_ERR_SOCKET…).
      const code = (error as { cause?: { code?: string } }).cause?.code ?? 'error'
      statuses[code] = (statuses[code] ?? 0) + 1
    } finally {
      inFlight -= 1
    }
  }
  const [started, total] = [performance.now(), Math.round(rate * seconds)]
  for (let sent = 0; sent < total; ) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate) + 1)
    for (; sent < due; sent++) pending.push(send(started + (sent / rate) * 1000))
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  await Promise.all(pending)
  m.problems = Object.entries(statuses).map(([code, n]) => `${n}×${code}`)
  return m
}

/** Several measurements as one: CPU µs a response, 2xx a second, percentiles of the latencies. */
export function summary(runs: Measurement[]) {
  const sum = (f: (m: Measurement) => number) => runs.reduce((s, m) => s + f(m), 0)
  const latencies = runs.flatMap((m) => m.latencies)
  const responses = sum((m) => m.responses)
  return {
    ...percentiles(latencies),
    us: sum((m) => m.cpuUs) / Math.max(1, responses),
    rps: latencies.length / sum((m) => m.seconds),
    problems: runs.flatMap((m) => m.problems).join(', '),
  }
}
export type Summary = ReturnType<typeof summary>

/** The count, median, 99th percentile and maximum of latencies (ms). */
export function percentiles(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) }
}

/** A figure as the tables print it (thousands separated); blank when not a number. */
export const f = (n: number | undefined, digits = 0) =>
  n === undefined || !Number.isFinite(n)
    ? ''
    : n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })

const verdicts: string[] = []
/** A verdict line, `ok …` or `FAIL …`, counted for the run's last line (verdictsMet). */
export function verdict(met: boolean, text: string) {
  verdicts.push(`${met ? 'ok' : 'FAIL'} ${text}`)
  return verdicts.at(-1) as string
}
export const verdictsMet = () =>
  `${verdicts.filter((v) => v.startsWith('ok')).length} of ${verdicts.length} verdicts met`

export const markdown = (head: string[], rows: unknown[][]) =>
  [head, head.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n')

/** A scenario's row: its name, its summary, and a last cell (verdicts, problems). */
export type Row = [string, Summary, string]
export const scenarioTable = (rows: Row[], last: string) =>
  markdown(
    ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', last],
    rows.map(([name, s, cell]) => [name, f(s.rps), f(s.p50, 2), f(s.p99, 2), f(s.us), cell]),
  )
