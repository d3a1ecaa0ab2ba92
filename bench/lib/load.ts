import autocannon, { type Request } from 'autocannon'
import { type Dataset, type PartnerData, prng } from './seed.js'

// The scenarios and the autocannon runs that drive them.

export interface Measurement {
  /** 2xx responses a second. */
  rps: number
  /** Requests of every status a second. */
  allRps: number
  count2xx: number
  p50: number
  p99: number
  max: number
  non2xx: number
  errors: number
  timeouts: number
  statusCodes: Record<string, number>
  seconds: number
  /** Every 2xx latency, ms, sorted: what combine() merges. */
  samples: Float64Array
  /** Responses of every status during the whole run, the settling included: what its CPU served. */
  responses: number
}

export interface LoadOptions {
  port: number
  connections: number
  duration: number
  requests: Request[]
  timeoutS?: number
  /**
   * Seconds of load before the measured `duration`, on the same connections: what is sent then is
   * neither counted nor timed. A run's first requests on its new connections are slow (the server
   * accepts and sets up 50 connections at once, and V8 optimises the connection code anew): up to
   * 0.8 s for a contract, against a p99 of ≈ 70 ms, enough to move the p99 of a 2 s slice.
   */
  settleS?: number
}

/** One autocannon run. Latencies are taken per 2xx response, to the microsecond. */
export async function runLoad(options: LoadOptions): Promise<Measurement> {
  let latencies = new Float64Array(1 << 16)
  let n = 0
  let responses = 0
  const statusCodes: Record<string, number> = {}
  const settleMs = (options.settleS ?? 0) * 1000
  const started = performance.now()
  const result = await new Promise<import('autocannon').Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${options.port}`,
        connections: options.connections,
        duration: options.duration + settleMs / 1000,
        pipelining: 1,
        timeout: options.timeoutS ?? 10,
        requests: options.requests,
      },
      (error, res) => {
        clearTimeout(guard)
        if (error) reject(error)
        else resolve(res)
      },
    )
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      responses += 1
      // Sent before the measured seconds began: settling.
      if (performance.now() - started - ms < settleMs) return
      statusCodes[status] = (statusCodes[status] ?? 0) + 1
      if (status < 200 || status > 299) return
      if (n === latencies.length) {
        const grown = new Float64Array(latencies.length * 2)
        grown.set(latencies)
        latencies = grown
      }
      latencies[n++] = ms
    })
    // autocannon stops by itself; this only bounds a run that would not.
    const guard = setTimeout(() => instance.stop(), (options.duration + settleMs / 1000 + 60) * 1000)
  })
  const seconds = (performance.now() - started - settleMs) / 1000
  return measurement(latencies.subarray(0, n).sort(), statusCodes, seconds, { ...result, responses })
}

function measurement(
  sorted: Float64Array,
  statusCodes: Record<string, number>,
  seconds: number,
  totals: Pick<Measurement, 'non2xx' | 'errors' | 'timeouts' | 'responses'>,
): Measurement {
  const n = sorted.length
  const pct = (p: number) =>
    n === 0 ? Number.NaN : (sorted[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)] as number)
  const all = Object.values(statusCodes).reduce((a, b) => a + b, 0)
  return {
    rps: n / seconds,
    allRps: all / seconds,
    count2xx: n,
    p50: pct(50),
    p99: pct(99),
    max: n === 0 ? Number.NaN : (sorted[n - 1] as number),
    non2xx: totals.non2xx,
    errors: totals.errors,
    timeouts: totals.timeouts,
    statusCodes,
    seconds,
    samples: sorted,
    responses: totals.responses,
  }
}

/** Several runs of one scenario as one: their requests over their summed time, latencies merged. */
export function combine(runs: Measurement[]): Measurement {
  const samples = new Float64Array(runs.reduce((sum, r) => sum + r.samples.length, 0))
  let at = 0
  for (const r of runs) {
    samples.set(r.samples, at)
    at += r.samples.length
  }
  const statusCodes: Record<string, number> = {}
  for (const r of runs)
    for (const [code, count] of Object.entries(r.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count
  const total = (field: 'non2xx' | 'errors' | 'timeouts' | 'seconds' | 'responses') =>
    runs.reduce((sum, r) => sum + r[field], 0)
  return measurement(samples.sort(), statusCodes, total('seconds'), {
    non2xx: total('non2xx'),
    errors: total('errors'),
    timeouts: total('timeouts'),
    responses: total('responses'),
  })
}

export interface Session {
  partner: PartnerData
  token: string
}

export type ScenarioId = 'baseline' | 'a' | 'b' | 'c' | 'd' | 'e'

export interface Scenario {
  id: ScenarioId
  title: string
  /** Reads and writes have different latency targets. */
  kind: 'read' | 'write'
  /** Requests per iteration (the contract-and-notify flow sends three). */
  requestsPerFlow: number
  requests: Request[]
}

const json = { 'content-type': 'application/json', accept: 'application/json' }

export function baselineScenario(): Scenario {
  return {
    id: 'baseline',
    title: 'bare Fastify, static JSON of a subscription’s size',
    kind: 'read',
    requestsPerFlow: 1,
    requests: [{ method: 'GET', path: '/baseline', headers: { accept: 'application/json' } }],
  }
}

/** The API scenarios; `sessions` holds one logged-in session per partner of the dataset. */
export function apiScenarios(dataset: Dataset, sessions: Session[]) {
  const random = prng(7)
  const auth = (s: Session) => ({ ...json, authorization: `Bearer ${s.token}` })
  const external = sessions.filter((s) => s.partner.gateway === 'external')

  const contractBody = (s: Session) =>
    JSON.stringify({
      plan_id: random.pick(s.partner.plans).id,
      customer_id: random.pick(s.partner.customerIds),
      model_id: random.pick(s.partner.models).id,
      serial_number: random.digits(15),
      is_used: random.next() < 0.15,
      ...(random.next() < 0.5 && { maxima: Math.round(random.pick(s.partner.models).defaultLmi * 0.009) }),
      metadata: { origin: `pdv-${random.int(1, 40)}` },
    })

  const scenarios: Record<Exclude<ScenarioId, 'baseline'>, Scenario> = {
    a: {
      id: 'a',
      title: 'GET /subscriptions/{id}, random ids',
      kind: 'read',
      requestsPerFlow: 1,
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => {
            const id = random.int(dataset.firstId, dataset.lastId)
            const session = sessions[dataset.owner[id - dataset.firstId] as number] as Session
            return { ...req, path: `/subscriptions/${id}`, headers: auth(session) }
          },
        },
      ],
    },
    b: {
      id: 'b',
      title: 'GET /subscriptions?page=N&per_page=15, random pages',
      kind: 'read',
      requestsPerFlow: 1,
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => {
            const session = random.pick(sessions.filter((s) => s.partner.subscriptions > 0))
            const page = random.int(1, Math.max(1, Math.ceil(session.partner.subscriptions / 15)))
            return { ...req, path: `/subscriptions?page=${page}&per_page=15`, headers: auth(session) }
          },
        },
      ],
    },
    c: {
      id: 'c',
      title: 'GET /quotation?model_id=M[&maxima=X]',
      kind: 'read',
      requestsPerFlow: 1,
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => {
            const session = random.pick(sessions)
            const model = random.pick(session.partner.models)
            const maxima = random.next() < 0.5 ? `&maxima=${(model.defaultLmi * 0.008).toFixed(2)}` : ''
            return { ...req, path: `/quotation?model_id=${model.id}${maxima}`, headers: auth(session) }
          },
        },
      ],
    },
    d: {
      id: 'd',
      title: 'POST /subscriptions',
      kind: 'write',
      requestsPerFlow: 1,
      requests: [
        {
          method: 'POST',
          path: '/subscriptions',
          setupRequest: (req) => {
            const session = random.pick(sessions)
            return { ...req, headers: auth(session), body: contractBody(session) }
          },
        },
      ],
    },
    e: {
      id: 'e',
      title: 'contract + list installments + notify installment 1 (external gateway)',
      kind: 'write',
      requestsPerFlow: 3,
      requests: [
        {
          method: 'POST',
          path: '/subscriptions',
          setupRequest: (req, context) => {
            const session = random.pick(external)
            context.session = session
            return { ...req, headers: auth(session), body: contractBody(session) }
          },
          onResponse: (status, body, context) => {
            context.subscription = status === 201 ? (JSON.parse(body) as { id: number }).id : undefined
          },
        },
        {
          method: 'GET',
          setupRequest: (req, context) => {
            if (context.subscription === undefined) return null
            return {
              ...req,
              path: `/subscriptions/${context.subscription}/installments`,
              headers: auth(context.session as Session),
            }
          },
          onResponse: (status, body, context) => {
            const list = status === 200 ? (JSON.parse(body) as { id: number; number: number }[]) : []
            context.installment = list.find((i) => i.number === 1)?.id
          },
        },
        {
          method: 'POST',
          setupRequest: (req, context) => {
            if (context.installment === undefined) return null
            return {
              ...req,
              path: `/subscriptions/${context.subscription}/installments/${context.installment}/notify-payment`,
              headers: {
                accept: 'application/json',
                authorization: `Bearer ${(context.session as Session).token}`,
              },
            }
          },
        },
      ],
    },
  }
  return scenarios
}

/** The page scenario restricted to one partner (the scale check). */
export function pageScenario(session: Session): Scenario {
  const random = prng(11)
  const pages = Math.max(1, Math.ceil(session.partner.subscriptions / 15))
  return {
    id: 'b',
    title: `GET /subscriptions?page=N&per_page=15, ${session.partner.subscriptions.toLocaleString('en')} subscriptions`,
    kind: 'read',
    requestsPerFlow: 1,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({
          ...req,
          path: `/subscriptions?page=${random.int(1, pages)}&per_page=15`,
          headers: { accept: 'application/json', authorization: `Bearer ${session.token}` },
        }),
      },
    ],
  }
}
