import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { createConnection, createServer, type Server, type Socket } from 'node:net'
import type { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { amparoProcess } from './helpers/cli.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'

// `amparo serve` and `amparo worker` started while PostgreSQL cannot be reached wait for it, a log
// line per attempt, and start once it answers. The database sits behind a TCP proxy this test opens
// only after both processes said they are waiting.

const root = fileURLToPath(new URL('..', import.meta.url))
const WAITING = 'database unreachable; waiting for it'

interface Started {
  child: ChildProcessByStdio<null, Readable, Readable>
  output: () => string
  exited: Promise<number | null>
}

function start(args: string[], env: Record<string, string>): Started {
  const child = spawn(process.execPath, amparoProcess(...args), {
    cwd: root,
    env: { ...process.env, ...env, AMPARO_ENV: 'test', LOG_LEVEL: 'warn' },
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
  return { child, output: () => output, exited }
}

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const address = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  if (!address || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** Forwards every connection on `port` to `target`. */
async function proxy(port: number, target: { host: string; port: number }): Promise<Server> {
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = createConnection(target)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => sockets.delete(socket))
    }
    client.pipe(upstream).pipe(client)
  })
  server.on('close', () => {
    for (const socket of sockets) socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return server
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

const url = process.env.DATABASE_URL
let database: TestDatabase | undefined
let proxied: Server | undefined
const started: Started[] = []

// Not useTestApp: the app must start while its PostgreSQL is unreachable, before any database exists.
afterAll(async () => {
  for (const s of started) if (s.child.exitCode === null) s.child.kill('SIGKILL')
  await Promise.all(started.map((s) => s.exited))
  await new Promise((resolve) => (proxied ? proxied.close(resolve) : resolve(undefined)))
  await database?.drop()
})

describe.runIf(url)('started while PostgreSQL is unreachable', () => {
  it('serve and worker wait, retrying, and start once it answers', { timeout: 180_000 }, async () => {
    database = await createTestDatabase()
    const real = new URL(database.env.DATABASE_URL as string)
    const proxyPort = await freePort()
    const behindProxy = new URL(real)
    behindProxy.hostname = '127.0.0.1'
    behindProxy.port = String(proxyPort)
    const env = { ...database.env, DATABASE_URL: behindProxy.toString() }
    const httpPort = await freePort()

    const serve = start(['serve'], { ...env, HOST: '127.0.0.1', PORT: String(httpPort) })
    const worker = start(['worker', '--once', '--json'], env)
    started.push(serve, worker)
    for (const [name, s] of [
      ['serve', serve],
      ['worker', worker],
    ] as const) {
      // At least two attempts each: they retry rather than give up.
      await until(`${name} to wait`, () => {
        if (s.child.exitCode !== null) throw new Error(`${name} exited:\n${s.output()}`)
        return s.output().split(WAITING).length > 2
      })
    }

    proxied = await proxy(proxyPort, { host: real.hostname, port: Number(real.port || 5432) })
    await until('serve to answer /health', () =>
      fetch(`http://127.0.0.1:${httpPort}/health`)
        .then((r) => r.ok)
        .catch(() => false),
    )
    expect(await worker.exited, worker.output()).toBe(0)
    expect(worker.output()).toContain('"idempotency"')
    const line = serve
      .output()
      .split('\n')
      .find((l) => l.includes(WAITING))
    expect(JSON.parse(line as string)).toMatchObject({ level: 40, attempt: 1, retry_in_ms: 500 })
  })
})
