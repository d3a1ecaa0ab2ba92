import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DemoPartner, loadDemo } from '../src/demo/demo.js'
import { amparoProcess } from './helpers/cli.js'
import { StripeServer } from './helpers/stripe-server.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'
import { credentialsFor, seedPartner, seedUser } from './helpers/world.js'

// The production refusals (README, Going live), on `amparo serve` started as a real process in production
// on a database first set up in test mode (the demo loaded, `test_` credentials issued).

const root = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'amparo-production-'))
const PUBLIC_URL = 'https://api.example.com'
const PRODUCTION = {
  AMPARO_ENV: 'production',
  AMPARO_JWT_KEYS: `k1=${randomBytes(48).toString('base64')}`,
  AMPARO_PUBLIC_URL: PUBLIC_URL,
  LOG_LEVEL: 'info',
}

interface Started {
  child: ChildProcessByStdio<null, Readable, Readable>
  port: number
  stdout: () => string
  stderr: () => string
  exited: Promise<number | null>
}
const started: Started[] = []
const databases: TestDatabase[] = []

// Not useTestApp: each test starts its own `amparo` process on a database of its own.
afterAll(async () => {
  for (const server of started) {
    if (server.child.exitCode === null) server.child.kill('SIGKILL')
    await server.exited
  }
  for (const database of databases) await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

/** `amparo serve` with `env` on top of the environment (the database's included). */
async function serve(env: Record<string, string>): Promise<Started> {
  const port = await freePort()
  const child = spawn(process.execPath, amparoProcess('serve'), {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const server = { child, port, stdout: () => stdout, stderr: () => stderr, exited }
  started.push(server)
  return server
}

// Generous deadlines, polled: a tsx start on a busy 2-core machine took more than 20 s.
const START_DEADLINE_MS = 90_000
/** A test that starts a server: its start, plus what it then does. */
const SERVER_TEST_MS = START_DEADLINE_MS + 30_000

/** Resolves once /health answers, or fails with what the process printed if it exits first. */
async function untilServing(server: Started): Promise<void> {
  const deadline = Date.now() + START_DEADLINE_MS
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`exited early:\n${server.stderr()}`)
    const ok = await fetch(`http://127.0.0.1:${server.port}/health`, { signal: AbortSignal.timeout(1000) })
      .then((r) => r.ok)
      .catch(() => false)
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`did not answer /health:\n${server.stderr()}`)
}

async function login(port: number, body: object) {
  const response = await fetch(`http://127.0.0.1:${port}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  })
  return { status: response.status, body: (await response.json()) as { token?: string } }
}

/** A database of its own; on SQLite a file, for the spawned process to open. */
async function database(name: string): Promise<TestDatabase> {
  const created = await createTestDatabase({ sqliteFile: join(dir, `${name}.sqlite`) })
  databases.push(created)
  return created
}

describe('a production start refuses', () => {
  it.each([
    [
      { AMPARO_JWT_KEYS: `k1=${'a'.repeat(40)}` },
      /^amparo: Invalid AMPARO_JWT_KEYS: the secret of kid k1 is guessable/,
    ],
    [{ AMPARO_PUBLIC_URL: '' }, /^amparo: AMPARO_PUBLIC_URL is required when AMPARO_ENV=production/],
    [
      { AMPARO_PUBLIC_URL: 'http://api.example.com' },
      /^amparo: Invalid AMPARO_PUBLIC_URL: production needs an https address/,
    ],
  ])(
    '%o with one line on stderr, exit 2',
    async (env, message) => {
      const server = await serve({ ...PRODUCTION, ...env, AMPARO_SQLITE_FILE: join(dir, 'never.sqlite') })
      expect(await server.exited).toBe(2)
      expect(server.stderr()).toMatch(message)
      expect(server.stderr().trim().split('\n')).toHaveLength(1)
      expect(server.stderr()).not.toContain('a'.repeat(40))
    },
    SERVER_TEST_MS,
  )
})

describe('production on a database first set up in test mode', () => {
  let server: Started
  let demo: DemoPartner[]
  let testCredential: { client_id: string; client_secret: string }
  let live: { client_id: string; client_secret: string }

  beforeAll(async () => {
    const db = await database('from-test')
    ;({ partners: demo } = await loadDemo(db.db, db.config, new Date().toISOString()))
    const partner = await seedPartner(db.db)
    testCredential = { client_id: partner.clientId, client_secret: partner.clientSecret }
    live = await credentialsFor(db.db, partner.id, 'production', new Date().toISOString())
    await seedUser(db.db, partner.id, 'owner@loja.example', 'correct-horse-9', new Date().toISOString())
    server = await serve({ ...db.env, ...PRODUCTION })
    await untilServing(server)
  }, SERVER_TEST_MS)

  it('starts, and live credentials and real users log in', async () => {
    expect(live.client_id).toMatch(/^live_/)
    expect((await login(server.port, live)).status).toBe(200)
    const user = await login(server.port, { email: 'owner@loja.example', password: 'correct-horse-9' })
    expect(user.status).toBe(200)
  })

  it('answers 401 to test_ client ids and the demo users, right secrets included', async () => {
    expect(testCredential.client_id).toMatch(/^test_/)
    expect(await login(server.port, testCredential)).toEqual({
      status: 401,
      body: expect.objectContaining({ message: 'Unauthenticated.' }),
    })
    for (const p of demo) {
      expect(
        (await login(server.port, { client_id: p.client_id, client_secret: p.client_secret })).status,
      ).toBe(401)
      expect((await login(server.port, { email: p.email, password: p.password })).status).toBe(401)
      expect((await login(server.port, { email: p.email.toUpperCase(), password: p.password })).status).toBe(
        401,
      )
    }
  })

  it('builds links from AMPARO_PUBLIC_URL, never from the Host header', async () => {
    const { body } = await login(server.port, live)
    const page = await new Promise<string>((resolve, reject) => {
      const request = http.get(
        {
          port: server.port,
          host: '127.0.0.1',
          path: '/brands?per_page=1',
          headers: { authorization: `Bearer ${body.token}`, host: 'attacker.example' },
        },
        (response) => {
          let text = ''
          response.setEncoding('utf8').on('data', (chunk: string) => {
            text += chunk
          })
          response.on('end', () => resolve(text))
        },
      )
      request.on('error', reject)
    })
    expect(JSON.parse(page).links.first).toBe(`${PUBLIC_URL}/brands?per_page=1&page=1`)
    expect(page).not.toContain('attacker.example')
  })

  it('prints none of the demo credentials', () => {
    for (const p of demo) {
      expect(server.stdout()).not.toContain(p.client_secret)
      expect(server.stdout()).not.toContain(p.password)
    }
    expect(server.stdout()).not.toContain('client_secret')
  })
})

describe('production on an empty database', () => {
  it(
    'loads no demo and prints no credentials',
    async () => {
      const db = await database('empty')
      const server = await serve({ ...db.env, ...PRODUCTION })
      await untilServing(server)
      expect(server.stdout()).not.toMatch(/demo|client_secret|password/i)
      expect(await db.db.selectFrom('partners').select('id').execute()).toEqual([])
    },
    SERVER_TEST_MS,
  )
})

describe('production with the Stripe gateway and a live key', () => {
  const stripe = new StripeServer()

  afterAll(() => stripe.stop())

  it(
    'serves a card payment: contract, pay, the charge made once with the live key',
    async () => {
      stripe.mode = 'live'
      await stripe.start()
      const db = await database('stripe-live')
      const { partners } = await loadDemo(db.db, db.config, new Date().toISOString())
      const own = partners.find((p) => p.gateway === 'own')
      if (!own) throw new Error('the demo has no own-gateway partner')
      const live = await credentialsFor(db.db, own.id, 'production', new Date().toISOString())
      const server = await serve({
        ...db.env,
        ...PRODUCTION,
        AMPARO_PAYMENT_GATEWAY: 'stripe',
        STRIPE_SECRET_KEY: 'sk_live_amparo0fake0live0key',
        STRIPE_API_URL: stripe.url,
      })
      await untilServing(server)
      const { body } = await login(server.port, live)
      const call = async (method: string, path: string, payload?: object) => {
        const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
          method,
          headers: { authorization: `Bearer ${body.token}`, 'content-type': 'application/json' },
          ...(payload && { body: JSON.stringify(payload) }),
          signal: AbortSignal.timeout(10_000),
        })
        return { status: response.status, json: (await response.json()) as Record<string, unknown> }
      }
      const plans = (await call('GET', '/plans')).json as unknown as { id: number }[]
      const models = (await call('GET', '/models')).json as { data: { id: number }[] }
      const customer = await call('POST', '/customers', {
        name: 'Maria da Silva',
        document: '529.982.247-25',
        email: 'maria@example.com',
        phone: '11987654321',
      })
      expect(customer.status).toBe(201)
      const contracted = await call('POST', '/subscriptions', {
        plan_id: plans[0]?.id,
        customer_id: customer.json.id,
        model_id: models.data[0]?.id,
      })
      expect(contracted.status, JSON.stringify(contracted.json)).toBe(201)
      const paid = await call('POST', `/subscriptions/${contracted.json.id}/payment`, {
        creditCard: { number: '4111111111111111', expiry: '1230', cvv: '123' },
      })
      expect(paid.status, JSON.stringify(paid.json)).toBe(200)
      expect(paid.json).toMatchObject({ status: 'pago', card: { brand: 'visa', last4: '1111' } })
      // The server in live mode answers 401 to any other key, which the service would answer 503.
      expect(stripe.paymentIntents).toHaveLength(1)
    },
    SERVER_TEST_MS + 30_000,
  )
})
