import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { amparoProcess } from './helpers/cli.js'
import { type Receiver, startReceiver } from './helpers/receiver.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'

// `amparo serve` runs the background jobs in-process on SQLite (so that `npm start` alone delivers
// webhooks), not on PostgreSQL; `--worker` / `--no-worker` override. A real process, a real receiver.

const root = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'amparo-serve-worker-'))
const onPostgres = Boolean(process.env.DATABASE_URL)

let database: TestDatabase | undefined
let dbEnv: Record<string, string>
let receiver: Receiver
let credentials: { client_id: string; client_secret: string } | undefined

interface Served {
  child: ChildProcessByStdio<null, Readable, Readable>
  base: string
  output: () => string
  exited: Promise<number | null>
}

const START_DEADLINE_MS = 90_000
/** A test that starts a server: its start, plus what it then does. */
const SERVER_TEST_MS = START_DEADLINE_MS + 30_000

/** What `serve` logs when no job runs in its process. */
const NO_JOBS = /no background jobs run in this process: run `amparo worker` beside it/

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const address = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  if (!address || typeof address === 'string') throw new Error('no port')
  return address.port
}

async function serve(args: string[]): Promise<Served> {
  const port = await freePort()
  const child = spawn(process.execPath, amparoProcess('serve', ...args), {
    cwd: root,
    env: {
      ...process.env,
      ...dbEnv,
      HOST: '127.0.0.1',
      PORT: String(port),
      AMPARO_ENV: 'test',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const base = `http://127.0.0.1:${port}`
  // Generous: a tsx start on a busy 2-core machine took more than 20 s.
  const deadline = Date.now() + START_DEADLINE_MS
  for (;;) {
    if (child.exitCode !== null) throw new Error(`amparo serve exited:\n${output}`)
    if (Date.now() > deadline) throw new Error(`amparo serve did not start:\n${output}`)
    const up = await fetch(`${base}/health`)
      .then((r) => r.ok)
      .catch(() => false)
    if (up) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  credentials ??= {
    client_id: /client_id +(\S+)/.exec(output)?.[1] ?? '',
    client_secret: /client_secret +(\S+)/.exec(output)?.[1] ?? '',
  }
  return { child, base, output: () => output, exited }
}

async function stop(served: Served) {
  served.child.kill('SIGTERM')
  expect(await served.exited).toBe(0)
}

async function api(
  base: string,
  token: string | null,
  method: string,
  path: string,
  body?: object,
  // biome-ignore lint/suspicious/noExplicitAny: the answers' shapes are asserted where used
): Promise<any> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: body && JSON.stringify(body),
  })
  return response.json()
}

/** Registers an endpoint and pings it; answers how long the ping took to arrive, or null after 3 s. */
async function pingLag(served: Served, path: string): Promise<number | null> {
  const { token } = await api(served.base, null, 'POST', '/auth/login', credentials)
  const endpoint = await api(served.base, token, 'POST', '/webhook-endpoints', { url: receiver.url(path) })
  const started = Date.now()
  const { event_id } = await api(served.base, token, 'POST', `/webhook-endpoints/${endpoint.id}/ping`)
  // The ping, not whatever else reaches the endpoint: on PostgreSQL a worker started later also
  // dispatches the events an earlier serve left in the feed (the demo's), to every endpoint then enabled.
  const ping = () => receiver.at(path).find((r) => r.headers['webhook-id'] === event_id)
  while (!ping() && Date.now() - started < 3000) {
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  const request = ping()
  if (!request) return null
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(request.headers[h])]),
  )
  expect(new Webhook(endpoint.secret).verify(request.body, headers)).toMatchObject({
    id: event_id,
    type: 'ping',
  })
  return Date.now() - started
}

// Not useTestApp: `amparo serve` runs as its own process; only its database is made here.
beforeAll(async () => {
  receiver = await startReceiver()
  if (onPostgres) {
    database = await createTestDatabase()
    dbEnv = database.env
  } else {
    dbEnv = { AMPARO_SQLITE_FILE: join(dir, 'amparo.sqlite') }
  }
})

afterAll(async () => {
  await receiver?.close()
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
})

describe('amparo serve and the background jobs', () => {
  it(
    `by default ${onPostgres ? 'does not run them (PostgreSQL)' : 'runs them in-process (SQLite): a ping arrives within 2 s'}`,
    async () => {
      const served = await serve([])
      try {
        const lag = await pingLag(served, '/default')
        if (onPostgres) expect(lag).toBeNull()
        else expect(lag).toBeLessThan(2000)
        // A newcomer on PostgreSQL learns why webhooks never leave.
        if (onPostgres) expect(served.output()).toMatch(NO_JOBS)
        else expect(served.output()).not.toMatch(NO_JOBS)
      } finally {
        await stop(served)
      }
    },
    SERVER_TEST_MS,
  )

  it(
    `${onPostgres ? '--worker runs them' : '--no-worker does not run them'}`,
    async () => {
      const served = await serve([onPostgres ? '--worker' : '--no-worker'])
      try {
        const lag = await pingLag(served, '/flag')
        if (onPostgres) expect(lag).toBeLessThan(2000)
        else expect(lag).toBeNull()
        if (onPostgres) expect(served.output()).not.toMatch(NO_JOBS)
        else expect(served.output()).toMatch(NO_JOBS)
      } finally {
        await stop(served)
      }
    },
    SERVER_TEST_MS,
  )
})
