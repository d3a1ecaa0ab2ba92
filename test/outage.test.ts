import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createDb, type Db } from '../src/db/database.js'
import { TokenService, tokenAudience } from '../src/modules/auth/auth.service.js'
import { expectedError } from './helpers/errors.js'
import { buildCheckedApp } from './helpers/test-app.js'
import { TEST_JWT_KEYS } from './helpers/test-db.js'
import { bearer } from './helpers/world.js'

// PostgreSQL that is not there: nothing listens on port 1, so every connection is refused.
const config = loadConfig({
  DATABASE_URL: 'postgres://postgres@127.0.0.1:1/amparo',
  AMPARO_JWT_KEYS: `${TEST_JWT_KEYS.current.kid}=${TEST_JWT_KEYS.current.secret}`,
  LOG_LEVEL: 'silent',
})

let db: Db
let app: App
let token: string

// Not useTestApp: the app runs on a database that is not there.
beforeAll(async () => {
  db = createDb(config.database)
  app = await buildCheckedApp({ config, db, logger: false })
  const tokens = new TokenService(config.jwtKeys, 3600, { now: () => new Date() }, tokenAudience(config.env))
  token = (await tokens.issue({ kind: 'client', id: 1 }, 1)).token
})
afterAll(async () => {
  await app.close()
  await db.destroy()
})

describe('when the database is unreachable', () => {
  it('stays alive: /health answers 200', async () => {
    const response = await app.inject({ url: '/health' })
    expect(response.statusCode).toBe(200)
  })

  it('is not ready: /ready answers 503 with Retry-After', async () => {
    const response = await app.inject({ url: '/ready' })
    expect(response.statusCode).toBe(503)
    expect(response.headers['retry-after']).toBe('5')
    expect(response.json()).toEqual(
      expectedError(response, 'service_unavailable', { message: expect.stringContaining('database') }),
    )
  })

  it('answers API calls 503 with Retry-After, not 500 and not internals', async () => {
    const response = await app.inject({ url: '/brands', headers: bearer(token) })
    expect(response.statusCode).toBe(503)
    expect(response.headers['retry-after']).toBe('5')
    const body = response.json()
    expect(body).toEqual(expectedError(response, 'service_unavailable', { message: expect.any(String) }))
    expect(response.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres/i)
  })

  it('answers a login 503 too', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { client_id: 'test_x', client_secret: 'y' },
    })
    expect(response.statusCode).toBe(503)
  })
})
