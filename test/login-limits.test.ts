import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { App } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { expectedError } from './helpers/errors.js'
import { buildCheckedApp, useTestApp } from './helpers/test-app.js'
import { credentialsFor, seedPartner, seedUser, type TestPartner } from './helpers/world.js'

// Failed logins are limited per account (client id or e-mail) and address, and per account
// whatever the address at a much higher count (README, Rate limits): an outsider cannot keep a
// partner's credential locked by failing from one address.

const REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379'
const PROXY = '10.0.0.2'
const ADDRESSES = Array.from({ length: 10 }, (_, i) => `203.0.113.${i + 1}`)

/** A login through the trusted proxy, from `address` as its X-Forwarded-For says. */
const attempt = (app: App, payload: object, address = ADDRESSES[0] as string) =>
  app.inject({
    method: 'POST',
    url: '/auth/login',
    remoteAddress: PROXY,
    headers: { 'x-forwarded-for': address },
    payload,
  })

const wrong = (p: TestPartner) => ({ client_id: p.clientId, client_secret: 'wrong-guess' })
const right = (p: TestPartner) => ({ client_id: p.clientId, client_secret: p.clientSecret })

describe('failed logins per account, in memory', () => {
  const ctx = useTestApp({ env: { AMPARO_TRUST_PROXY: '10.0.0.0/8' } })
  afterEach(() => vi.restoreAllMocks())

  it('locks out only the address that failed 10 times: the partner keeps logging in elsewhere', async () => {
    const target = await seedPartner(ctx.db)
    const statuses: number[] = []
    for (let i = 0; i < 60; i++) statuses.push((await attempt(ctx.app, wrong(target))).statusCode)
    expect(statuses).toEqual([...Array(10).fill(401), ...Array(50).fill(429)])
    expect((await attempt(ctx.app, right(target))).statusCode).toBe(429)
    // The refused attempts checked no secret: they do not count towards the account-wide limit.
    expect((await attempt(ctx.app, right(target), '198.51.100.7')).statusCode).toBe(200)
    // Each failed login is a scrypt check: minutes on a busy 2-core machine, not 20 s.
  }, 180_000)

  it('stops 200 guesses from 10 rotating addresses after 100, for those addresses only', async () => {
    const target = await seedPartner(ctx.db)
    const HOME = '198.51.100.20'
    expect((await attempt(ctx.app, right(target), HOME)).statusCode).toBe(200)
    const statuses: number[] = []
    for (let i = 0; i < 200; i++)
      statuses.push((await attempt(ctx.app, wrong(target), ADDRESSES[i % 10])).statusCode)
    expect(statuses.slice(0, 100)).toEqual(Array(100).fill(401))
    expect(statuses.slice(100)).toEqual(Array(100).fill(429))

    const locked = await attempt(ctx.app, right(target), ADDRESSES[3])
    expect(locked.statusCode).toBe(429)
    expect(locked.json()).toEqual(
      expectedError(locked, 'rate_limited', {
        message: 'Too many failed logins for this account. Retry in 15 minutes.',
      }),
    )
    const retryAfter = Number(locked.headers['retry-after'])
    expect(retryAfter).toBeGreaterThan(14 * 60)
    expect(retryAfter).toBeLessThanOrEqual(15 * 60)

    // The address that logged in before still does; so does one that has not failed, once: a wrong
    // guess from it makes it one of the failing addresses, locked by the account's count.
    expect((await attempt(ctx.app, right(target), HOME)).statusCode).toBe(200)
    expect((await attempt(ctx.app, right(target), '198.51.100.1')).statusCode).toBe(200)
    expect((await attempt(ctx.app, wrong(target), '198.51.100.2')).statusCode).toBe(401)
    expect((await attempt(ctx.app, right(target), '198.51.100.2')).statusCode).toBe(429)

    // The same partner's other credential and user are other accounts.
    const other = await credentialsFor(ctx.db, target.id, 'test', new Date().toISOString())
    const byOther = await attempt(ctx.app, { client_id: other.client_id, client_secret: other.client_secret })
    expect(byOther.statusCode).toBe(200)
    await seedUser(ctx.db, target.id, 'owner@loja.example', 'correct-horse-9')
    const byUser = await attempt(ctx.app, { email: 'owner@loja.example', password: 'correct-horse-9' })
    expect(byUser.statusCode).toBe(200)
  }, 300_000)

  it('past 100 failures of an account, an address that failed fewer than 10 times is locked too', async () => {
    await seedUser(ctx.db, (await seedPartner(ctx.db)).id, 'alvo@loja.example', 'correct-horse-9')
    const many = Array.from({ length: 20 }, (_, i) => `192.0.2.${i + 1}`)
    for (let i = 0; i < 100; i++) {
      const guess = await attempt(ctx.app, { email: 'alvo@loja.example', password: 'guess' }, many[i % 20])
      expect(guess.statusCode).toBe(401)
    }
    const right = { email: 'alvo@loja.example', password: 'correct-horse-9' }
    expect((await attempt(ctx.app, right, many[7])).statusCode).toBe(429)
    expect((await attempt(ctx.app, right, '198.51.100.30')).statusCode).toBe(200)
  }, 300_000)

  it('logs the account in again once its 15 minutes are over', async () => {
    const target = await seedPartner(ctx.db)
    for (let i = 0; i < 10; i++) await attempt(ctx.app, wrong(target))
    expect((await attempt(ctx.app, right(target))).statusCode).toBe(429)
    const later = Date.now() + 15 * 60_000 + 1000
    vi.spyOn(Date, 'now').mockReturnValue(later)
    expect((await attempt(ctx.app, right(target))).statusCode).toBe(200)
  })

  it('counts e-mails without case', async () => {
    const target = await seedPartner(ctx.db)
    await seedUser(ctx.db, target.id, 'maria@loja.example', 'correct-horse-9')
    for (let i = 0; i < 10; i++) {
      const email = i % 2 ? 'MARIA@loja.example' : 'maria@LOJA.example'
      const response = await attempt(ctx.app, { email, password: 'guess' })
      expect(response.statusCode).toBe(401)
    }
    const locked = await attempt(ctx.app, { email: 'maria@loja.example', password: 'correct-horse-9' })
    expect(locked.statusCode).toBe(429)
  })

  it('does not count successful logins, nor logins without credentials', async () => {
    const target = await seedPartner(ctx.db)
    for (let i = 0; i < 12; i++) {
      expect((await attempt(ctx.app, right(target), ADDRESSES[i % 10])).statusCode).toBe(200)
    }
    for (let i = 0; i < 12; i++) {
      expect((await attempt(ctx.app, { client_secret: 'x' }, ADDRESSES[i % 10])).statusCode).toBe(422)
    }
    for (let i = 0; i < 9; i++) await attempt(ctx.app, wrong(target))
    expect((await attempt(ctx.app, right(target))).statusCode).toBe(200)
  })

  it('lets no more than 10 concurrent guesses be checked', async () => {
    const target = await seedPartner(ctx.db)
    const responses = await Promise.all(Array.from({ length: 30 }, () => attempt(ctx.app, wrong(target))))
    const statuses = responses.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 401)).toHaveLength(10)
    expect(statuses.filter((s) => s === 429)).toHaveLength(20)
  })

  it('treats unknown client ids alike: a 429 does not tell which exist', async () => {
    const statuses = []
    for (let i = 0; i < 11; i++)
      statuses.push((await attempt(ctx.app, { client_id: 'test_nobody', client_secret: 'x' })).statusCode)
    expect(statuses).toEqual([...Array(10).fill(401), 429])
  })
})

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

describe.skipIf(!(await redisReachable()))('failed logins per account, shared through Redis', () => {
  const env = { REDIS_URL, AMPARO_TRUST_PROXY: '10.0.0.0/8' }
  const ctx = useTestApp({ env })
  let second: App

  beforeAll(async () => {
    // Counters outlive test runs in Redis, and client ids are random: clearing is only tidiness.
    const redis = new Redis(REDIS_URL)
    const keys = await redis.keys('amparo-rl:login-failures:*')
    if (keys.length) await redis.del(...keys)
    redis.disconnect()

    second = await buildCheckedApp({ config: loadConfig({ ...ctx.env, ...env }), db: ctx.db, logger: false })
    await second.ready()
    // Until an app's Redis connection is up, logins pass uncounted (by design): wait for both.
    for (const app of [ctx.app, second]) {
      for (let i = 0; i < 100; i++) {
        const response = await attempt(app, { client_id: 'test_warm_up', client_secret: 'x' })
        if (response.headers['ratelimit-remaining'] !== undefined) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  })
  afterAll(() => second?.close())

  it('counts one account and address across two API processes, and keeps its window there', async () => {
    const target = await seedPartner(ctx.db)
    const statuses = []
    for (let i = 0; i < 12; i++) {
      const app = i % 2 ? second : ctx.app
      statuses.push((await attempt(app, wrong(target))).statusCode)
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429])
    for (const app of [ctx.app, second]) {
      const locked = await attempt(app, right(target))
      expect(locked.statusCode).toBe(429)
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(14 * 60)
      expect((await attempt(app, right(target), '198.51.100.1')).statusCode).toBe(200)
    }
    const redis = new Redis(REDIS_URL)
    try {
      const ttl = await redis.pttl(`amparo-rl:login-failures:client:${target.clientId}|${ADDRESSES[0]}`)
      expect(ttl).toBeGreaterThan(14 * 60_000)
    } finally {
      redis.disconnect()
    }
  })

  it('takes back a successful attempt across processes', async () => {
    const target = await seedPartner(ctx.db)
    for (let i = 0; i < 9; i++) await attempt(i % 2 ? second : ctx.app, wrong(target))
    for (let i = 0; i < 3; i++) {
      expect((await attempt(i % 2 ? second : ctx.app, right(target))).statusCode).toBe(200)
    }
    expect((await attempt(second, wrong(target))).statusCode).toBe(401)
    expect((await attempt(ctx.app, wrong(target))).statusCode).toBe(429)
  })

  it('remembers for 30 days, across processes, the address that logged in', async () => {
    const target = await seedPartner(ctx.db)
    const HOME = '198.51.100.40'
    expect((await attempt(ctx.app, right(target), HOME)).statusCode).toBe(200)
    const redis = new Redis(REDIS_URL)
    try {
      const ttl = await redis.pttl(`amparo-rl:login-known:client:${target.clientId}|${HOME}`)
      expect(ttl).toBeGreaterThan(29 * 86_400_000)
    } finally {
      redis.disconnect()
    }
  })
})
