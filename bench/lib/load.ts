import autocannon, { type Request, type Result } from 'autocannon'
import { type Dataset, type PartnerData, prng } from './seed.js'

// The scenarios, and the autocannon runs that drive them.

export interface Measurement {
  seconds: number
  /** Responses of every status, the settling included: what the server's CPU served. */
  responses: number
  /** Latencies of the 2xx responses, ms, sorted. */
  latencies: Float64Array
  /** Non-2xx responses, errors and timeouts, as text; empty when there were none. */
  problems: string
}

export const rps = (m: Measurement) => m.latencies.length / m.seconds

export function percentile(m: Measurement, p: number): number {
  const n = m.latencies.length
  return n === 0 ? Number.NaN : (m.latencies[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)] as number)
}

export function merge(a: Measurement, b: Measurement): Measurement {
  const latencies = new Float64Array(a.latencies.length + b.latencies.length)
  latencies.set(a.latencies)
  latencies.set(b.latencies, a.latencies.length)
  return {
    seconds: a.seconds + b.seconds,
    responses: a.responses + b.responses,
    latencies: latencies.sort(),
    problems: [a.problems, b.problems].filter(Boolean).join(', '),
  }
}

/**
 * `connections` connections for `seconds`, after `settleS` seconds on the same connections that
 * are neither counted nor timed: the first requests on 50 new connections are slow (accepting
 * them, V8 optimising the connection code anew), enough to move the p99 of a short run.
 */
export async function runLoad(options: {
  port: number
  connections: number
  seconds: number
  requests: Request[]
  settleS?: number
  timeoutS?: number
}): Promise<Measurement> {
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  let responses = 0
  const settleMs = (options.settleS ?? 0.5) * 1000
  const started = performance.now()
  const result = await new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${options.port}`,
        connections: options.connections,
        duration: options.seconds + settleMs / 1000,
        timeout: options.timeoutS ?? 10,
        requests: options.requests,
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    )
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      responses += 1
      if (performance.now() - started - ms < settleMs) return
      if (status >= 200 && status < 300) latencies.push(ms)
      else statuses[status] = (statuses[status] ?? 0) + 1
    })
  })
  const problems = Object.entries(statuses).map(([code, n]) => `${n}×${code}`)
  if (result.errors) problems.push(`${result.errors} errors`)
  if (result.timeouts) problems.push(`${result.timeouts} timeouts`)
  return {
    seconds: (performance.now() - started - settleMs) / 1000,
    responses,
    latencies: Float64Array.from(latencies).sort(),
    problems: problems.join(', '),
  }
}

export interface Session {
  partner: PartnerData
  token: string
}

export type ScenarioId = 'a' | 'b' | 'c' | 'd' | 'e'

export interface Scenario {
  id: ScenarioId | 'base'
  title: string
  kind: 'read' | 'write'
  requests: Request[]
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' }
const auth = (s: Session) => ({ ...JSON_HEADERS, authorization: `Bearer ${s.token}` })

/** One request of a scenario: what autocannon sends, and what the floor records in-process. */
type Make = () => { method: 'GET' | 'POST'; path: string; session: Session; body?: string }

/** The API scenarios (a)–(d) as request makers; `sessions` holds one session per seeded partner. */
export function makers(dataset: Dataset, sessions: Session[], seed = 7): Record<'a' | 'b' | 'c' | 'd', Make> {
  const random = prng(seed)
  const listed = sessions.filter((s) => s.partner.subscriptions > 0)
  return {
    a: () => {
      const id = random.int(dataset.firstId, dataset.lastId)
      const session = sessions[dataset.owner[id - dataset.firstId] as number] as Session
      return { method: 'GET', path: `/subscriptions/${id}`, session }
    },
    b: () => {
      const session = random.pick(listed)
      const page = random.int(1, Math.max(1, Math.ceil(session.partner.subscriptions / 15)))
      return { method: 'GET', path: `/subscriptions?page=${page}&per_page=15`, session }
    },
    c: () => {
      const session = random.pick(sessions)
      const model = random.pick(session.partner.models)
      const maxima = random.next() < 0.5 ? `&maxima=${(model.defaultLmi * 0.008).toFixed(2)}` : ''
      return { method: 'GET', path: `/quotation?model_id=${model.id}${maxima}`, session }
    },
    d: () => {
      const session = random.pick(sessions)
      const { plans, customerIds, models } = session.partner
      const body = JSON.stringify({
        plan_id: random.pick(plans).id,
        customer_id: random.pick(customerIds),
        model_id: random.pick(models).id,
        serial_number: random.digits(15),
        is_used: random.next() < 0.15,
        ...(random.next() < 0.5 && { maxima: Math.round(random.pick(models).defaultLmi * 0.009) }),
        metadata: { origin: `pdv-${random.int(1, 40)}` },
      })
      return { method: 'POST', path: '/subscriptions', session, body }
    },
  }
}

export const TITLES: Record<ScenarioId, string> = {
  a: 'GET /subscriptions/{id}',
  b: 'GET /subscriptions, a page of 15',
  c: 'GET /quotation',
  d: 'POST /subscriptions',
  e: 'contract + installments + notify-payment',
}

export function apiScenarios(dataset: Dataset, sessions: Session[]): Record<ScenarioId, Scenario> {
  const make = makers(dataset, sessions)
  const scenario = (id: 'a' | 'b' | 'c' | 'd'): Scenario => ({
    id,
    title: TITLES[id],
    kind: id === 'd' ? 'write' : 'read',
    requests: [
      {
        setupRequest: (req) => {
          const { method, path, session, body } = make[id]()
          return { ...req, method, path, headers: auth(session), ...(body && { body }) }
        },
      },
    ],
  })
  const external = sessions.filter((s) => s.partner.gateway === 'external')
  const contract = makers(dataset, external, 8).d
  // (e): three requests a flow, each counted; an external-gateway partner's contract, its
  // installments, and the payment of installment 1 as the gateway notifies it.
  const e: Scenario = {
    id: 'e',
    title: TITLES.e,
    kind: 'write',
    requests: [
      {
        method: 'POST',
        path: '/subscriptions',
        setupRequest: (req, context) => {
          const { session, body } = contract()
          context.session = session
          return { ...req, headers: auth(session), body }
        },
        onResponse: (status, body, context) => {
          context.subscription = status === 201 ? (JSON.parse(body) as { id: number }).id : undefined
        },
      },
      {
        method: 'GET',
        setupRequest: (req, context) =>
          context.subscription === undefined
            ? null
            : {
                ...req,
                path: `/subscriptions/${context.subscription}/installments`,
                headers: auth(context.session as Session),
              },
        onResponse: (status, body, context) => {
          const list = status === 200 ? (JSON.parse(body) as { id: number; number: number }[]) : []
          context.installment = list.find((i) => i.number === 1)?.id
        },
      },
      {
        method: 'POST',
        setupRequest: (req, context) =>
          context.installment === undefined
            ? null
            : {
                ...req,
                path: `/subscriptions/${context.subscription}/installments/${context.installment}/notify-payment`,
                headers: {
                  accept: 'application/json',
                  authorization: `Bearer ${(context.session as Session).token}`,
                },
              },
      },
    ],
  }
  return { a: scenario('a'), b: scenario('b'), c: scenario('c'), d: scenario('d'), e }
}

/** The bare servers' one request. */
export const BASE: Scenario = {
  id: 'base',
  title: 'bare Fastify',
  kind: 'read',
  requests: [{ method: 'GET', path: '/baseline', headers: { accept: 'application/json' } }],
}

/** (b) restricted to one partner: the scale check. */
export function pageOf(session: Session): Scenario {
  const random = prng(11)
  const pages = Math.max(1, Math.ceil(session.partner.subscriptions / 15))
  return {
    id: 'b',
    title: `a page of ${session.partner.subscriptions.toLocaleString('en')} subscriptions`,
    kind: 'read',
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          method: 'GET',
          path: `/subscriptions?page=${random.int(1, pages)}&per_page=15`,
          headers: auth(session),
        }),
      },
    ],
  }
}
