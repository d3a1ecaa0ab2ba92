import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import http, { type IncomingHttpHeaders } from 'node:http'
import { createServer } from 'node:net'
import type { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { cpf as nthCpf } from '../helpers/documents.js'

// The cluster harness: real `amparo` processes (two API processes, two workers) against one
// fresh PostgreSQL database, or one API process on a SQLite file, driven over HTTP on 127.0.0.1.
// They run the built bundle, dist/amparo.mjs, as `npm start` does (`npm run test:cluster` builds
// it first), so what ships is what these tests exercise.

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** The maintenance database the harness connects to for create/drop/terminate. */
export const PG_ADMIN_URL = process.env.CLUSTER_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
/**
 * Shared rate-limit counters. A Redis database of its own (index 7): the suite's rate-limit test
 * clears `amparo-rl:*` in database 0 and counts per partner id, which repeat across fresh databases.
 */
export const REDIS_URL = process.env.CLUSTER_REDIS_URL ?? 'redis://127.0.0.1:6379/7'
export const TIME_ZONE = 'America/Sao_Paulo'
const JWT_KEYS = 'cluster=cluster-signing-key-0123456789abcdefghijkl'

export const log = (line: string) => console.log(`[cluster] ${line}`)

// ---------------------------------------------------------------------------------------------
// Processes

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface Proc {
  name: string
  child: ChildProcessByStdio<null, Readable, Readable>
  /** Set for API processes. */
  port: number
  output: () => string
  exited: Promise<Exit>
  alive: () => boolean
}

const running = new Set<Proc>()
// Should the test process end without its clean-up, nothing it started outlives it.
process.once('exit', () => {
  for (const proc of running) proc.child.kill('SIGKILL')
})

/** The environment of every amparo process: nothing from the caller's AMPARO_* or DATABASE_URL leaks in. */
export function amparoEnv(database: Record<string, string>): Record<string, string> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] =>
        e[1] !== undefined &&
        !/^(AMPARO_.*|DATABASE_URL|DB_POOL_MAX|REDIS_URL|METRICS_.*|LOG_LEVEL|HOST|PORT|PGAPPNAME)$/.test(
          e[0],
        ),
    ),
  )
  return {
    ...inherited,
    DATABASE_URL: '',
    AMPARO_ENV: 'test',
    AMPARO_TIMEZONE: TIME_ZONE,
    AMPARO_JWT_KEYS: JWT_KEYS,
    // The load is far above a partner's real quota; the limiter itself still runs, through Redis.
    AMPARO_RATE_LIMIT: '1000000',
    AMPARO_LOGIN_RATE_LIMIT: '100000',
    REDIS_URL,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...database,
  }
}

export function spawnAmparo(name: string, args: string[], env: Record<string, string>, port = 0): Proc {
  const child = spawn(process.execPath, ['dist/amparo.mjs', ...args], {
    cwd: ROOT,
    // Names its PostgreSQL connections (pg_stat_activity.application_name).
    env: { ...env, PGAPPNAME: appName(name), ...(port && { PORT: String(port) }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const append = (chunk: string) => {
    // Keeps the tail only: a long load must not grow it without bound.
    output = (output + chunk).slice(-200_000)
  }
  child.stdout.setEncoding('utf8').on('data', append)
  child.stderr.setEncoding('utf8').on('data', append)
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const proc: Proc = {
    name,
    child,
    port,
    output: () => output,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
  }
  running.add(proc)
  void exited.then(() => running.delete(proc))
  return proc
}

/** Runs one CLI command to completion; its stdout, or an error with everything it printed. */
export async function runAmparo(args: string[], env: Record<string, string>, timeoutMs = 30_000) {
  const proc = spawnAmparo(`amparo ${args.join(' ')}`, args, env)
  const exit = await withTimeout(proc.exited, timeoutMs, proc.name).catch((error) => {
    proc.child.kill('SIGKILL')
    throw error
  })
  if (exit.code !== 0) throw new Error(`${proc.name} exited ${JSON.stringify(exit)}:\n${proc.output()}`)
  return proc.output()
}

export async function startApi(name: string, env: Record<string, string>, port?: number): Promise<Proc> {
  const proc = spawnAmparo(name, ['serve'], env, port ?? (await freePort()))
  await waitReady(proc, 60_000)
  return proc
}

/** A worker at `info`, so that waitWorkerRound sees its loop start. */
export function startWorker(name: string, env: Record<string, string>): Proc {
  return spawnAmparo(name, ['worker', '--interval', '1'], { ...env, LOG_LEVEL: 'info' })
}

/** The `application_name` of a process's PostgreSQL connections. */
export const appName = (name: string) => `cluster-${name.replace(/[^A-Za-z0-9]+/g, '-')}`.slice(0, 60)

/**
 * Until the worker logs that its loop started (its first round follows at once): it is past its
 * start-up migration, in its loop, where a failed round is logged and retried. (Watching
 * pg_stat_activity for a job's query missed rounds whose last statement is a transaction's commit.)
 */
export async function waitWorkerRound(proc: Proc, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (true) {
    if (!proc.alive()) throw new Error(`${proc.name} exited early:\n${proc.output()}`)
    if (Date.now() > deadline)
      throw new Error(`${proc.name} ran no round in ${timeoutMs} ms:\n${proc.output()}`)
    if (proc.output().includes('"msg":"worker started"')) return
    await sleep(200)
  }
}

/** What a process logged at `minLevel` (pino: 40 warn, 50 error) or above, by message, counted. */
export function logged(proc: Proc, minLevel = 50): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const line of proc.output().split('\n')) {
    if (!line.startsWith('{')) continue
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } }
      if ((entry.level ?? 0) < minLevel) continue
      const what = minLevel < 50 ? String(entry.msg) : `${entry.msg}: ${entry.err?.message ?? ''}`
      counts[what.slice(0, 160)] = (counts[what.slice(0, 160)] ?? 0) + 1
    } catch {}
  }
  return counts
}

/** Until `/ready` answers 200; fails at once if the process dies. */
export async function waitReady(proc: Proc, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (true) {
    if (!proc.alive()) throw new Error(`${proc.name} exited early:\n${proc.output()}`)
    if (Date.now() > deadline)
      throw new Error(`${proc.name} not ready after ${timeoutMs} ms:\n${proc.output()}`)
    const status = await call(proc.port, 'GET', '/ready', { timeoutMs: 3000, fresh: true })
      .then((r) => r.status)
      .catch(() => 0)
    if (status === 200) return
    await sleep(100)
  }
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export async function stopProc(proc: Proc, graceMs = 12_000): Promise<Exit & { forced: boolean }> {
  if (!proc.alive()) return { ...(await proc.exited), forced: false }
  proc.child.kill('SIGTERM')
  try {
    return { ...(await withTimeout(proc.exited, graceMs, `${proc.name} to exit`)), forced: false }
  } catch {
    proc.child.kill('SIGKILL')
    return { ...(await proc.exited), forced: true }
  }
}

/** Last resort for afterAll: nothing started here outlives the run. */
export async function killAll(): Promise<void> {
  await Promise.all(
    [...running].map(async (proc) => {
      proc.child.kill('SIGKILL')
      await withTimeout(proc.exited, 5000, proc.name).catch(() => {})
    }),
  )
}

export async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', resolve)
  })
  const address = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  if (!address || typeof address === 'string') throw new Error('no free port')
  return address.port
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface Reply {
  port: number
  status: number
  headers: IncomingHttpHeaders
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the tests
  json: any
  startedAt: number
  endedAt: number
  ms: number
}

/** No HTTP answer: refused, reset, or no answer in time (`code` TIMEOUT). */
export class RequestFailure extends Error {
  constructor(
    readonly port: number,
    readonly code: string,
    readonly startedAt: number,
    readonly endedAt: number,
    /** Sent on a kept-alive connection (else on a new one). */
    readonly reused = false,
  ) {
    super(`request to :${port} failed: ${code}`)
  }
  get ms() {
    return this.endedAt - this.startedAt
  }
}

export interface CallOptions {
  token?: string
  body?: unknown
  headers?: Record<string, string>
  timeoutMs?: number
  /** A connection of its own instead of the keep-alive pool. */
  fresh?: boolean
  /** Called once the whole request is written. */
  onSent?: () => void
  /** Connections of the caller's own (a load loop's), instead of the shared keep-alive pool. */
  agent?: http.Agent
}

// Keep-alive connections, as a load balancer keeps them.
const agents = new Map<number, http.Agent>()
function agentFor(port: number): http.Agent {
  let agent = agents.get(port)
  if (!agent) {
    agent = new http.Agent({ keepAlive: true, maxSockets: 64 })
    agents.set(port, agent)
  }
  return agent
}

export function dropAgents(): void {
  for (const agent of agents.values()) agent.destroy()
  agents.clear()
}

/**
 * Keep-alive requests sent again on a new connection because the server closed the reused one as
 * they went out (the HTTP/1.1 race Node documents under `request.reusedSocket`): it never saw them.
 */
export const staleRetries = { count: 0 }

export function call(port: number, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  return send(port, method, path, options, Date.now(), false)
}

function send(
  port: number,
  method: string,
  path: string,
  options: CallOptions,
  startedAt: number,
  isRetry: boolean,
): Promise<Reply> {
  const { token, body, headers = {}, timeoutMs = 15_000, fresh = false, onSent, agent } = options
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise<Reply>((resolve, reject) => {
    const fail = (code: string) =>
      reject(new RequestFailure(port, code, startedAt, Date.now(), Boolean(request.reusedSocket)))
    let answered = false
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent: fresh ? false : (agent ?? agentFor(port)),
        headers: {
          accept: 'application/json',
          ...(token && { authorization: `Bearer ${token}` }),
          ...(payload !== undefined && {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(payload)),
          }),
          ...headers,
        },
      },
      (response) => {
        answered = true
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          text += chunk
        })
        response.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message))
        response.on('end', () => {
          clearTimeout(timer)
          const endedAt = Date.now()
          let json: unknown = text
          try {
            json = text ? JSON.parse(text) : null
          } catch {}
          resolve({
            port,
            status: response.statusCode ?? 0,
            headers: response.headers,
            json,
            startedAt,
            endedAt,
            ms: endedAt - startedAt,
          })
        })
      },
    )
    const timer = setTimeout(
      () => request.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })),
      timeoutMs,
    )
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      const code = error.code ?? error.message
      if (!isRetry && !answered && request.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) {
        staleRetries.count += 1
        // On a new connection indeed: through the agent it could take another pooled socket the
        // server is closing at the same moment, and fail the same way a second time.
        send(port, method, path, { ...options, onSent: undefined, fresh: true }, startedAt, true).then(
          resolve,
          reject,
        )
        return
      }
      fail(code)
    })
    if (onSent) request.on('finish', onSent)
    request.end(payload)
  })
}

/** An answer, or the failure as a value (load loops record both). */
export function attempt(port: number, method: string, path: string, options: CallOptions = {}) {
  return call(port, method, path, options).catch((error: unknown) => {
    if (error instanceof RequestFailure) return error
    throw error
  })
}

/** Fails with the answer's body when the status is not the expected one. */
export function expectStatus(reply: Reply, ...statuses: number[]): Reply {
  if (!statuses.includes(reply.status)) {
    throw new Error(
      `:${reply.port} answered ${reply.status}, expected ${statuses}: ${JSON.stringify(reply.json)}`,
    )
  }
  return reply
}

// ---------------------------------------------------------------------------------------------
// The API as a partner uses it

export interface DemoPartner {
  id: number
  gateway: 'external' | 'own'
  client_id: string
  client_secret: string
}

export interface Partner {
  id: number
  gateway: 'external' | 'own'
  token: string
  customerId: number
  modelId: number
  /** A 12-installment subscription plan. */
  planId: number
  installments: number
}

export function parseDemo(stdout: string): DemoPartner[] {
  const line = stdout.split('\n').find((l) => l.startsWith('{"partners"'))
  if (!line) throw new Error(`no JSON in the demo output:\n${stdout}`)
  return (JSON.parse(line) as { partners: DemoPartner[] }).partners
}

/** Logs in and finds what contracting needs: a customer (created), a model, a 12x plan. */
export async function preparePartner(ports: number[], demo: DemoPartner): Promise<Partner> {
  const [p0, p1 = p0] = ports as [number, number?]
  const login = expectStatus(
    await call(p0, 'POST', '/auth/login', {
      body: { client_id: demo.client_id, client_secret: demo.client_secret },
    }),
    200,
  )
  const token = login.json.token as string
  const customer = expectStatus(
    await call(p1 as number, 'POST', '/customers', {
      token,
      body: {
        name: 'Cliente Cluster',
        document: '529.982.247-25',
        email: 'cluster@example.com',
        phone: '(11) 98765-4321',
      },
    }),
    201,
  )
  const models = expectStatus(await call(p0, 'GET', '/models?per_page=1', { token }), 200)
  const plans = expectStatus(await call(p1 as number, 'GET', '/plans', { token }), 200)
  const plan = (plans.json as { id: number; installments: number }[]).find((p) => p.installments === 12)
  if (!plan) throw new Error(`no 12x plan: ${JSON.stringify(plans.json)}`)
  return {
    id: demo.id,
    gateway: demo.gateway,
    token,
    customerId: customer.json.id,
    modelId: models.json.data[0].id,
    planId: plan.id,
    installments: plan.installments,
  }
}

/** A valid CPF from a number, for customers of their own. */
export const cpf = (seed: number) => nthCpf(seed % 800_000_000)

export async function createCustomer(port: number, partner: Partner, document: string): Promise<number> {
  const reply = await call(port, 'POST', '/customers', {
    token: partner.token,
    body: { name: 'Cliente Cluster', document, email: 'cluster@example.com', phone: '(11) 98765-4321' },
  })
  return expectStatus(reply, 201).json.id
}

export function subscriptionBody(partner: Partner, origin: string) {
  return {
    plan_id: partner.planId,
    customer_id: partner.customerId,
    model_id: partner.modelId,
    is_used: false,
    metadata: { origin },
  }
}

export function contract(port: number, partner: Partner, origin: string, headers?: Record<string, string>) {
  return call(port, 'POST', '/subscriptions', {
    token: partner.token,
    body: subscriptionBody(partner, origin),
    ...(headers && { headers }),
  })
}

export async function installmentIds(port: number, partner: Partner, subscriptionId: number) {
  const reply = expectStatus(
    await call(port, 'GET', `/subscriptions/${subscriptionId}/installments`, { token: partner.token }),
    200,
  )
  return (reply.json as { id: number; number: number }[]).sort((a, b) => a.number - b.number).map((i) => i.id)
}

export function notifyPath(subscriptionId: number, installmentId: number) {
  return `/subscriptions/${subscriptionId}/installments/${installmentId}/notify-payment`
}

export const CARD = { number: '4111111111111111', expiry: '1230', cvv: '123', holder: 'CLIENTE CLUSTER' }

/** Up to `n` loops running `step` at once, each with its own index. */
export async function loops(n: number, step: (loop: number) => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: n }, (_, loop) => step(loop)))
}

export const range = (n: number) => Array.from({ length: n }, (_, i) => i)

// ---------------------------------------------------------------------------------------------
// Load bookkeeping

export interface Tally {
  sent: number
  byStatus: Map<string, number>
  maxMs: number
  failures: RequestFailure[]
  replies: Reply[]
}

export function tally(): Tally {
  return { sent: 0, byStatus: new Map(), maxMs: 0, failures: [], replies: [] }
}

export function record(t: Tally, outcome: Reply | RequestFailure): void {
  t.sent += 1
  t.maxMs = Math.max(t.maxMs, outcome.ms)
  const key = outcome instanceof RequestFailure ? outcome.code : String(outcome.status)
  t.byStatus.set(key, (t.byStatus.get(key) ?? 0) + 1)
  if (outcome instanceof RequestFailure) t.failures.push(outcome)
  else t.replies.push(outcome)
}

export function describeTally(t: Tally): string {
  const statuses = [...t.byStatus.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}×${n}`)
    .join(' ')
  const ok = t.replies.filter((r) => r.status >= 200 && r.status < 300).length
  return `sent=${t.sent} 2xx=${ok} max=${t.maxMs}ms [${statuses}]`
}

// ---------------------------------------------------------------------------------------------
// Databases

export type Query = (sql: string) => Promise<Record<string, unknown>[]>

/** A PostgreSQL database of this run only, created fresh and dropped after. */
export class ClusterDatabase {
  readonly url: string
  private readonly pool: pg.Pool

  private constructor(readonly name: string) {
    const admin = new URL(PG_ADMIN_URL)
    admin.pathname = `/${name}`
    this.url = admin.toString()
    this.pool = new pg.Pool({ connectionString: this.url, max: 3, connectionTimeoutMillis: 5000 })
    // Our own connections are terminated during the outage too.
    this.pool.on('error', () => {})
  }

  static async create(): Promise<ClusterDatabase> {
    await dropLeftovers()
    const name = `amparo_cluster_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`
    await admin(`create database ${name}`)
    return new ClusterDatabase(name)
  }

  query: Query = async (sql) => (await this.pool.query(sql)).rows

  /** A connection of its own (to hold a lock across statements); the caller ends it. */
  async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000 })
    client.on('error', () => {})
    await client.connect()
    return client
  }

  /** One connection to the maintenance database, kept for the outage loop (connecting is slow). */
  private adminConnection?: Promise<pg.Client>

  private async adminQuery(sql: string) {
    this.adminConnection ??= (async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 })
      client.on('error', () => {})
      await client.connect()
      return client
    })()
    return (await (await this.adminConnection).query(sql)).rows
  }

  /** Ends every connection to this database (never another database's); how many went. */
  async terminateConnections(): Promise<number> {
    const rows = await this.adminQuery(
      `select pg_terminate_backend(pid) as gone from pg_stat_activity where datname = '${this.name}' and pid <> pg_backend_pid()`,
    )
    return rows.filter((r) => r.gone).length
  }

  async allowConnections(allow: boolean): Promise<void> {
    await this.adminQuery(`alter database ${this.name} allow_connections ${allow}`)
  }

  async drop(): Promise<void> {
    await this.pool.end().catch(() => {})
    if (this.adminConnection) await (await this.adminConnection).end().catch(() => {})
    await admin(`alter database ${this.name} allow_connections true`).catch(() => {})
    await admin(`drop database if exists ${this.name} with (force)`)
  }
}

/**
 * Databases of earlier runs that were killed before their clean-up (named by this harness, more
 * than two hours old, nobody connected): dropped, so they do not pile up on a shared server.
 */
async function dropLeftovers(): Promise<void> {
  const rows = await admin(
    `select datname from pg_database where datname ~ '^amparo_cluster_[0-9a-z]+_[0-9a-f]{6}$'
     and not exists (select 1 from pg_stat_activity a where a.datname = pg_database.datname)`,
  )
  for (const { datname } of rows) {
    const created = Number.parseInt(String(datname).split('_')[2] ?? '', 36)
    if (!(Date.now() - created > 2 * 60 * 60 * 1000)) continue
    await admin(`drop database if exists ${datname}`).catch(() => {})
  }
}

async function admin(sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 })
  await client.connect()
  try {
    return (await client.query(sql)).rows
  } finally {
    await client.end()
  }
}

// ---------------------------------------------------------------------------------------------
// Invariants, on either database (portable SQL, no parameters)

export interface Inconsistencies {
  /** Subscriptions without all their installments. */
  partialSubscriptions: unknown[]
  /** Paid installments without exactly one successful ledger row. */
  paidWithoutOneLedgerRow: unknown[]
  /** Successful ledger rows of installments that are not paid. */
  ledgerWithoutPaidInstallment: unknown[]
  /** Subscriptions whose status disagrees with installment 1. */
  statusMismatch: unknown[]
  /** Paid annual plans without a policy number or without exactly one successful ledger row. */
  annualPlansInconsistent: unknown[]
  duplicatePolicyNumbers: unknown[]
}

export async function inconsistencies(query: Query): Promise<Inconsistencies> {
  const ok = `('approved', 'recorded')`
  return {
    partialSubscriptions: await query(
      `select s.id, s.installments_count, count(i.id) as n from subscriptions s
       left join installments i on i.subscription_id = s.id
       group by s.id, s.installments_count having count(i.id) <> s.installments_count`,
    ),
    paidWithoutOneLedgerRow: await query(
      `select i.id, count(p.id) as n from installments i
       left join payments p on p.installment_id = i.id and p.outcome in ${ok}
       where i.status = 'paid' group by i.id having count(p.id) <> 1`,
    ),
    ledgerWithoutPaidInstallment: await query(
      `select p.id, p.installment_id from payments p join installments i on i.id = p.installment_id
       where p.outcome in ${ok} and i.status <> 'paid'`,
    ),
    statusMismatch: await query(
      `select s.id, s.status, i.status as first from subscriptions s
       join installments i on i.subscription_id = s.id and i.number = 1
       where s.status <> 'canceled'
         and ((s.status = 'pago' and i.status <> 'paid') or (s.status = 'pending' and i.status = 'paid'))`,
    ),
    annualPlansInconsistent: await query(
      `select a.id, a.policy_number, count(p.id) as n from annual_plans a
       left join payments p on p.annual_plan_id = a.id and p.outcome in ${ok}
       where a.status not in ('awaiting_payment', 'canceled')
       group by a.id, a.policy_number having count(p.id) <> 1 or a.policy_number is null`,
    ),
    duplicatePolicyNumbers: await query(
      `select policy_number, count(*) as n from annual_plans where policy_number is not null
       group by policy_number having count(*) > 1`,
    ),
  }
}

export const NO_INCONSISTENCIES: Inconsistencies = {
  partialSubscriptions: [],
  paidWithoutOneLedgerRow: [],
  ledgerWithoutPaidInstallment: [],
  statusMismatch: [],
  annualPlansInconsistent: [],
  duplicatePolicyNumbers: [],
}
