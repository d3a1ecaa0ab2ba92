import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { App } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { LOGIN_ADDRESS_FACTOR } from '../src/plugins/rate-limits.js'
import { expectedError } from './helpers/errors.js'
import { buildCheckedApp, createTestApp, useTestApp } from './helpers/test-app.js'
import { bearer, partnerWithToken, seedCatalog, type TestPartner } from './helpers/world.js'

const REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379'

async function redisReachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { connectTimeout: 500, maxRetriesPerRequest: 0, lazyConnect: true })
  try {
    await probe.connect()
    return (await probe.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    probe.disconnect()
  }
}

describe('rate limits, in memory', () => {
  const ctx = useTestApp({ env: { AMPARO_RATE_LIMIT: '5', AMPARO_LOGIN_RATE_LIMIT: '3' } })
  let a: TestPartner
  let tokenA: string
  let tokenB: string

  beforeAll(async () => {
    await seedCatalog(ctx.db)
    ;({ partner: a, token: tokenA } = await partnerWithToken(ctx.app, ctx.db))
    ;({ token: tokenB } = await partnerWithToken(ctx.app, ctx.db))
  })

  it('counts requests per partner and answers 429 with Retry-After past the limit', async () => {
    const remaining: string[] = []
    for (let i = 0; i < 5; i++) {
      const response = await ctx.app.inject({ url: '/plans', headers: bearer(tokenA) })
      expect(response.statusCode).toBe(200)
      expect(response.headers['ratelimit-limit']).toBe('5')
      expect(Number(response.headers['ratelimit-reset'])).toBeGreaterThan(0)
      remaining.push(String(response.headers['ratelimit-remaining']))
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0'])

    const limited = await ctx.app.inject({ url: '/plans', headers: bearer(tokenA) })
    expect(limited.statusCode).toBe(429)
    expect(limited.json()).toEqual(
      expectedError(limited, 'rate_limited', { message: expect.stringMatching(/^Too many requests/) }),
    )
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    expect(limited.headers['ratelimit-remaining']).toBe('0')
  })

  it('keeps partners apart', async () => {
    const other = await ctx.app.inject({ url: '/plans', headers: bearer(tokenB) })
    expect(other.statusCode).toBe(200)
  })

  it('limits login per client id and address, more strictly', async () => {
    const wrong = { client_id: a.clientId, client_secret: 'wrong' }
    // The beforeAll login of this client already counted once.
    const statuses = []
    for (let i = 0; i < 3; i++) {
      statuses.push((await ctx.app.inject({ method: 'POST', url: '/auth/login', payload: wrong })).statusCode)
    }
    expect(statuses).toEqual([401, 401, 429])
    const limited = await ctx.app.inject({ method: 'POST', url: '/auth/login', payload: wrong })
    expect(limited.headers['retry-after']).toBeDefined()

    // Another client from the same address is not locked out.
    const other = await ctx.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { client_id: 'test_someone_else', client_secret: 'x' },
    })
    expect(other.statusCode).toBe(401)
  })
})

describe('login limits per address, whatever the client id', () => {
  // Per client id and address at 2 a minute, so per address alone at 2 × LOGIN_ADDRESS_FACTOR.
  const limit = 2 * LOGIN_ADDRESS_FACTOR
  const attempt = (app: App, clientId: string, from: { remoteAddress?: string; forwarded?: string }) =>
    app.inject({
      method: 'POST',
      url: '/auth/login',
      remoteAddress: from.remoteAddress ?? '203.0.113.7',
      headers: from.forwarded ? { 'x-forwarded-for': from.forwarded } : {},
      payload: { client_id: clientId, client_secret: 'wrong' },
    })

  it('answers 429 once one address has tried that many client ids', async () => {
    const ctx = await createTestApp({ env: { AMPARO_LOGIN_RATE_LIMIT: '2' } })
    try {
      const statuses = []
      for (let i = 0; i <= limit; i++)
        statuses.push((await attempt(ctx.app, `test_guess${i}`, {})).statusCode)
      expect(statuses).toEqual([...Array(limit).fill(401), 429])
      // Another address is not held up by it.
      expect((await attempt(ctx.app, 'test_other', { remoteAddress: '198.51.100.9' })).statusCode).toBe(401)
    } finally {
      await ctx.close()
    }
  })

  it('counts the client behind a trusted proxy, not the proxy (AMPARO_TRUST_PROXY)', async () => {
    const ctx = await createTestApp({
      env: { AMPARO_LOGIN_RATE_LIMIT: '2', AMPARO_TRUST_PROXY: '10.0.0.0/8' },
    })
    try {
      const proxy = '10.0.0.2'
      for (let i = 0; i < limit; i++) {
        const from = { remoteAddress: proxy, forwarded: '203.0.113.7' }
        expect((await attempt(ctx.app, `test_guess${i}`, from)).statusCode).toBe(401)
      }
      expect(
        (await attempt(ctx.app, 'test_x', { remoteAddress: proxy, forwarded: '203.0.113.7' })).statusCode,
      ).toBe(429)
      // Another client through the same proxy still logs in attempts of its own.
      expect(
        (await attempt(ctx.app, 'test_y', { remoteAddress: proxy, forwarded: '198.51.100.9' })).statusCode,
      ).toBe(401)
    } finally {
      await ctx.close()
    }
  })
})

describe.skipIf(!(await redisReachable()))('rate limits shared through Redis', () => {
  const env = { AMPARO_RATE_LIMIT: '4', REDIS_URL }
  const ctx = useTestApp({ env })
  let second: App
  let token: string

  beforeAll(async () => {
    // Counters outlive test runs in Redis, and ids repeat across fresh databases: start clean.
    const redis = new Redis(REDIS_URL)
    const keys = await redis.keys('amparo-rl:*')
    if (keys.length) await redis.del(...keys)
    redis.disconnect()

    await seedCatalog(ctx.db)
    ;({ token } = await partnerWithToken(ctx.app, ctx.db))
    second = await buildCheckedApp({ config: loadConfig({ ...ctx.env, ...env }), db: ctx.db, logger: false })
    // Until an app's Redis connection is up, its limiter lets requests pass uncounted (by design):
    // wait, with another partner's requests, until both count.
    const { token: warmUp } = await partnerWithToken(ctx.app, ctx.db)
    for (const app of [ctx.app, second]) {
      for (let i = 0; i < 100; i++) {
        const response = await app.inject({ url: '/plans', headers: bearer(warmUp) })
        if (response.headers['ratelimit-remaining'] !== undefined) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  })
  afterAll(() => second?.close())

  it('counts one partner across two API instances', async () => {
    const statuses = []
    for (const app of [ctx.app, second, ctx.app, second, ctx.app]) {
      statuses.push((await app.inject({ url: '/plans', headers: bearer(token) })).statusCode)
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429])
  })
})

describe('rate limits while Redis is unreachable', () => {
  it('answers uncounted, and logs the outage once instead of a stack trace per attempt', async () => {
    const lines: string[] = []
    const stderr = vi.spyOn(console, 'error')
    // Port 1 refuses at once; ioredis retries every few tens of milliseconds.
    const ctx = await createTestApp({
      env: { AMPARO_RATE_LIMIT: '2', REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'warn' },
      logStream: { write: (line) => void lines.push(line) },
    })
    try {
      await seedCatalog(ctx.db)
      const { token } = await partnerWithToken(ctx.app, ctx.db)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const statuses = []
      for (let i = 0; i < 4; i++) {
        statuses.push((await ctx.app.inject({ url: '/plans', headers: bearer(token) })).statusCode)
      }
      expect(statuses).toEqual([200, 200, 200, 200])
      const outages = lines.map((line) => JSON.parse(line)).filter((l) => /Redis unreachable/.test(l.msg))
      expect(outages).toHaveLength(1)
      expect(outages[0].err.message).toMatch(/ECONNREFUSED/)
      expect(stderr.mock.calls.filter((call) => String(call[0]).includes('ioredis'))).toEqual([])
    } finally {
      stderr.mockRestore()
      await ctx.close()
    }
  })
})
