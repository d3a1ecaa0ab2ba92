import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createMetrics, type Metrics, serveMetrics } from '../src/plugins/metrics.js'
import { useTestApp } from './helpers/test-app.js'

let metrics: Metrics
const ctx = useTestApp({ metrics: (db) => (metrics = createMetrics(db)) })

describe('Prometheus metrics', () => {
  it('counts and times requests by route pattern and status', async () => {
    await ctx.app.inject({ url: '/health' })
    await ctx.app.inject({ url: '/brands/1' })
    await ctx.app.inject({ url: '/brands/2' })
    const text = await metrics.registry.metrics()
    expect(text).toContain('amparo_http_requests_total{method="GET",route="/health",status="200"} 1')
    expect(text).toContain('amparo_http_requests_total{method="GET",route="/brands/:brandId",status="401"} 2')
    expect(text).toMatch(
      /amparo_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/health",status="200"\}/,
    )
    expect(text).toContain('amparo_job_runs_total')
  })

  it('reports the PostgreSQL pool when there is one', async () => {
    const text = await metrics.registry.metrics()
    if (ctx.config.database.kind === 'postgres') {
      expect(text).toMatch(/amparo_db_pool_connections \d+/)
    } else {
      expect(text).toContain('# TYPE amparo_db_pool_connections gauge')
    }
  })

  it('is served on its own port, never on the public one', async () => {
    const server = await serveMetrics(metrics, '127.0.0.1', 0)
    try {
      const { port } = server.address() as AddressInfo
      const response = await fetch(`http://127.0.0.1:${port}/metrics`)
      expect(response.status).toBe(200)
      expect(await response.text()).toContain('amparo_http_requests_total')
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404)
    } finally {
      server.close()
    }
    expect((await ctx.app.inject({ url: '/metrics' })).statusCode).toBe(404)
  })
})
