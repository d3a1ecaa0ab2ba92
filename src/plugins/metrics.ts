import { createServer, type Server } from 'node:http'
import fp from 'fastify-plugin'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { type Db, poolUsage } from '../db/database.js'
import { CardTestingLimitError } from '../modules/payments/payment.service.js'

/** One process's Prometheus metrics. */
export interface Metrics {
  registry: Registry
  httpRequests: Counter<'method' | 'route' | 'status'>
  httpDuration: Histogram<'method' | 'route' | 'status'>
  jobRuns: Counter<'job'>
  jobItems: Counter<'job' | 'outcome'>
  jobFailures: Counter<'job'>
  /** Card attempts refused by the card-testing limit, by the limit that refused them. */
  cardTestingRefusals: Counter<'scope'>
}

export function createMetrics(db: Db): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const labelNames = ['method', 'route', 'status'] as const
  const pool = (name: string, help: string, pick: (u: NonNullable<ReturnType<typeof poolUsage>>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const usage = poolUsage(db)
        if (usage) this.set(pick(usage))
      },
    })
  pool('amparo_db_pool_connections', 'PostgreSQL connections open in this process', (u) => u.total)
  pool('amparo_db_pool_idle', 'PostgreSQL connections idle in this process', (u) => u.idle)
  pool('amparo_db_pool_waiting', 'Queries waiting for a PostgreSQL connection', (u) => u.waiting)
  return {
    registry,
    httpRequests: new Counter({
      name: 'amparo_http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'amparo_http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    jobRuns: new Counter({
      name: 'amparo_job_runs_total',
      help: 'Worker job runs',
      labelNames: ['job'],
      registers: [registry],
    }),
    jobItems: new Counter({
      name: 'amparo_job_items_total',
      help: 'Items a worker job handled, by outcome (charged, declined, refused, canceled…)',
      labelNames: ['job', 'outcome'],
      registers: [registry],
    }),
    jobFailures: new Counter({
      name: 'amparo_job_failures_total',
      help: 'Worker job runs that failed',
      labelNames: ['job'],
      registers: [registry],
    }),
    cardTestingRefusals: new Counter({
      name: 'amparo_card_testing_refusals_total',
      help: 'Card attempts refused (429) by the declined-attempts limit, per contract or per partner',
      labelNames: ['scope'],
      registers: [registry],
    }),
  }
}

/** Counts and times every response by its route pattern (not its URL, which would explode labels). */
export const metricsPlugin = fp<{ metrics: Metrics }>(
  async (app, { metrics }) => {
    app.addHook('onResponse', async (request, reply) => {
      const labels = {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      }
      metrics.httpRequests.inc(labels)
      metrics.httpDuration.observe(labels, reply.elapsedTime / 1000)
    })
    app.addHook('onError', async (_request, _reply, error) => {
      if (error instanceof CardTestingLimitError) metrics.cardTestingRefusals.inc({ scope: error.scope })
    })
  },
  { name: 'metrics' },
)

/** `GET /metrics` on its own port, so the public port never exposes it. */
export function serveMetrics(metrics: Metrics, host: string, port: number): Promise<Server> {
  const server = createServer(async (req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': metrics.registry.contentType })
    res.end(await metrics.registry.metrics())
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve(server))
  })
}
