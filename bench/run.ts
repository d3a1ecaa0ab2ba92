// `npm run bench`: the API under load beside a bare Fastify server and the floor. docs/benchmarks.md.
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { Request } from 'autocannon'
import { sql } from 'kysely'
import pg from 'pg'
import { type Config, loadConfig } from '../src/config.js'
import { createDb, type Db } from '../src/db/database.js'
import { migrateTo, migrateToLatest } from '../src/db/migrate.js'
import { type DemoPartner, loadDemo } from '../src/demo/demo.js'
import { claimMakers, seedClaims, uploadBench } from './lib/claims.js'
import { clockBench } from './lib/clock.js'
import { type Database, record, replay } from './lib/floor.js'
import {
  type Call,
  type Measurement,
  makers,
  requestsOf,
  runLoad,
  type ScenarioId,
  type Session,
  summary,
  TITLES,
} from './lib/load.js'
import { cpuUs, memoryOf, type Server, startServer, stop, stopAll, waitIdle } from './lib/proc.js'
import { recurrenceBench } from './lib/recurrence.js'
import { seed } from './lib/seed.js'
import { addEndpoint, startReceiver, webhooksBench } from './lib/webhooks.js'

// The issue's targets: CPU ratios to the floor (SQLite), and the limits every run checks.
const FLOOR_TARGETS: Record<ScenarioId, number> = { a: 0.5, b: 0.35, c: 0.55, d: 0.3 }
const P99_MS = { read: 25, write: 60 }
const MAX_RSS_MB = 200
const MAX_STARTUP_MS = 1500
const MAX_SCALE_RATIO = 2
const MAX_CONTRACT_SCALE_RATIO = 1.25
const CLAIMS = { p99Ms: 50, uploadMs: 500, memoryTimesFile: 3, pageRatio: 1.2 }

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = join(ROOT, 'dist/amparo.mjs')
const HELP = `npm run bench -- [options]
  --db sqlite|postgres   database (default sqlite; postgres: a fresh database, dropped at the end)
  --pg-url URL           the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
  --subscriptions N      subscriptions seeded over the 2 demo partners (default 100000)
  --duration S           measured seconds a scenario (default 10); --warmup S before it (default 2)
  --connections N        concurrent connections (default 50)
  --only a,b,c,d         scenarios to run (default all)
  --against REV          instead: REV (built in a temporary git worktree) against this checkout,
                         server CPU a request, in --pairs N (default 6) fresh pairs of API processes
  --scale                instead: (b) for a partner with 1,000 and one with --subscriptions (default 1000000),
                         then (d) on that database against one of 2,000 subscriptions
  --recurrence           instead: 2,000 due installments charged by 1, then 2 workers at a 300 ms fake Stripe
  --webhooks             instead: --events N (default 10000) events delivered by 1 worker to a local receiver,
                         then another partner's lag beside an endpoint that hangs
  --claims               instead: --claims-count N (default 10000) claims seeded over the subscriptions, then
                         (g) 10 MiB uploads, (e) openings, (f) pages of claims against (b)'s of subscriptions
  --clock                instead: another partner's p99 while one partner's sandbox clock moves 400 days
                         over 150 paid subscriptions, and the 409 of a second advance meanwhile
  --endpoint             each seeded partner has an enabled webhook endpoint (a local receiver answering 200)
  --no-worker            serve without its in-process jobs and delivery (SQLite): the write path alone
  --no-build             use dist/ as it is (default: npm run build first)
  --time-limit MIN       stop everything after MIN minutes (default 15; 45 with --against or --scale)
`
const args = (() => {
  try {
    const string = (fallback?: string) => ({ type: 'string', default: fallback }) as const
    return parseArgs({
      options: {
        db: string('sqlite'),
        'pg-url': string('postgres://postgres@127.0.0.1:5432/postgres'),
        subscriptions: string(),
        duration: string('10'),
        warmup: string('2'),
        connections: string('50'),
        only: string('a,b,c,d'),
        against: string(),
        pairs: string('6'),
        scale: { type: 'boolean' },
        recurrence: { type: 'boolean' },
        webhooks: { type: 'boolean' },
        clock: { type: 'boolean' },
        claims: { type: 'boolean' },
        'claims-count': string('10000'),
        events: string('10000'),
        endpoint: { type: 'boolean' },
        'no-worker': { type: 'boolean' },
        'no-build': { type: 'boolean' },
        'time-limit': string(),
        help: { type: 'boolean' },
      },
    }).values
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${HELP}`)
    process.exit(2)
  }
})()
if (args.help) {
  process.stdout.write(HELP)
  process.exit(0)
}
const kind = args.db as 'sqlite' | 'postgres'
const [duration, warmup, connections, pairs] = [args.duration, args.warmup, args.connections, args.pairs].map(
  Number,
)
const subscriptions = Number(args.subscriptions ?? (args.scale ? 1_000_000 : 100_000))
const only = String(args.only)
  .split(',')
  .map((s) => s.trim()) as ScenarioId[]
if (
  (kind !== 'sqlite' && kind !== 'postgres') ||
  ![duration, connections, subscriptions, pairs, Number(args.events)].every((n) => (n as number) > 0) ||
  !((warmup as number) >= 0) ||
  !only.every((id) => id in TITLES)
) {
  process.stderr.write(`bench: invalid options\n\n${HELP}`)
  process.exit(2)
}
const log = (line = '') => process.stdout.write(`${line}\n`)
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')

// What the run creates, undone whatever happens.
let tmp = ''
const undo: (() => unknown)[] = []
let cleaning: Promise<void> | null = null
const cleanup = () => {
  cleaning ??= (async () => {
    await stopAll()
    for (const step of undo.reverse()) await Promise.resolve(step()).catch((e) => log(`cleanup: ${e}`))
    if (tmp) rmSync(tmp, { recursive: true, force: true })
  })()
  return cleaning
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanup().finally(() => process.exit(130)))
const limitMin = Number(args['time-limit'] ?? (args.against || args.scale ? 45 : 15))
setTimeout(() => {
  log(`\nbench: time limit of ${limitMin} min reached; stopping`)
  void cleanup().finally(() => process.exit(3))
}, limitMin * 60_000).unref()

function run(command: string, words: string[], cwd = ROOT): string {
  const r = spawnSync(command, words, { cwd, encoding: 'utf8', timeout: 300_000 })
  if (r.status !== 0)
    throw new Error(`${command} ${words.join(' ')} failed:\n${(r.stdout + r.stderr).slice(-2000)}`)
  return r.stdout.trim()
}

/**
 * REV checked out in a detached git worktree and built there, with this checkout's node_modules;
 * `lastMigration` is its newest migration. Its migrations must be a prefix of this checkout's: the
 * seed stops at its schema, and this checkout's side migrates its own copy at start, as `serve` does.
 */
function buildRevision(rev: string, dir: string) {
  const commit = run('git', ['rev-parse', '--short', `${rev}^{commit}`])
  const migrations = (r: string) =>
    run('git', ['ls-tree', '--name-only', r, 'src/db/migrations/'])
      .split('\n')
      .map((path) => /\/(\d{4}-[^/]+)\.ts$/.exec(path)?.[1])
      .filter((name): name is string => name !== undefined)
  const [before, after] = [migrations(commit), migrations('HEAD')]
  if (before.length === 0 || before.some((name, i) => after[i] !== name)) {
    throw new Error(
      `${rev}'s migrations are not a prefix of this checkout's: --against cannot seed one database for both`,
    )
  }
  run('git', ['worktree', 'add', '--detach', dir, commit])
  undo.push(() => run('git', ['worktree', 'remove', '--force', dir]))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  run('npm', ['run', 'build'], dir)
  return { commit, cli: join(dir, 'dist/amparo.mjs'), lastMigration: before.at(-1) as string }
}

/** A copy of the seeded `database` (closed: SQLite's WAL checkpointed) for the --against revision. */
async function copyDatabase(database: Database): Promise<Database> {
  if (database.kind === 'sqlite') {
    const file = join(tmp, 'against.sqlite')
    copyFileSync(database.file, file)
    return { kind: 'sqlite', file }
  }
  const created = `amparo_bench_${randomBytes(4).toString('hex')}`
  await admin(`create database ${created} template ${new URL(database.url).pathname.slice(1)}`)
  undo.push(() => admin(`drop database if exists ${created} with (force)`))
  const url = new URL(database.url)
  url.pathname = `/${created}`
  return { kind: 'postgres', url: url.toString() }
}

/** The service's environment, rebuilt: nothing of the caller's may redirect it. */
function serviceEnv(database: Database): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(
    ([key]) => !/^(AMPARO_|DATABASE_URL$|REDIS_URL$|DB_POOL_MAX$|HOST$|PORT$|LOG_LEVEL$)/.test(key),
  )
  return {
    ...Object.fromEntries(kept),
    ...(database.kind === 'sqlite' ? { AMPARO_SQLITE_FILE: database.file } : { DATABASE_URL: database.url }),
    AMPARO_ENV: 'test',
    AMPARO_JWT_KEYS: `bench=${randomBytes(24).toString('hex')}`,
    AMPARO_RATE_LIMIT: '1000000', // the per-partner limiter runs (its cost is measured) but never answers 429
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
  }
}

async function call(port: number, path: string, token?: string, body?: string) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      accept: 'application/json',
      ...(body && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body: body || undefined,
    signal: AbortSignal.timeout(60_000),
  })
  const text = await response.text()
  // biome-ignore lint/suspicious/noExplicitAny: JSON of several shapes, checked by the sanity checks
  const json: any = /^[[{]/.test(text) ? JSON.parse(text) : {}
  return { status: response.status, text: text.slice(0, 300), json }
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`sanity check failed: ${message}`)
}

/** Before any load: each list's total, a quotation, a contract and the payment of its installment 1. */
async function sanityChecks(port: number, sessions: Session[]) {
  for (const { partner, token } of sessions) {
    const page = await call(port, '/subscriptions?page=1&per_page=15', token)
    check(page.json.meta?.total === partner.subscriptions, `partner ${partner.id}'s list: ${page.text}`)
    const quote = await call(port, `/quotation?model_id=${partner.models[0]?.id}`, token)
    check(quote.status === 200, `quotation: ${quote.status} ${quote.text}`)
  }
  const { partner, token } = sessions.find((s) => s.partner.gateway === 'external') as Session
  const body = {
    plan_id: partner.planIds[0],
    customer_id: partner.customerIds[0],
    model_id: partner.models[0]?.id,
  }
  const contract = await call(port, '/subscriptions', token, JSON.stringify(body))
  check(contract.status === 201, `contract: ${contract.status} ${contract.text}`)
  const installments = await call(port, `/subscriptions/${contract.json.id}/installments`, token)
  const first = installments.json.find?.((i: { number: number }) => i.number === 1)
  check(first, `installments: ${installments.status} ${installments.text}`)
  const path = `/subscriptions/${contract.json.id}/installments/${first.id}/notify-payment`
  const paid = await call(port, path, token, '')
  check(paid.status >= 200 && paid.status < 300, `payment: ${paid.status} ${paid.text}`)
}

/**
 * The node flags of `npm start`, so the API runs as an operator starts it (its heap limits count),
 * and BENCH_NODE_FLAGS (a profile: `--cpu-prof --cpu-prof-dir=DIR`).
 */
const START_FLAGS = (() => {
  const start: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start
  const words = start.split(/\s+/)
  return [
    ...words.slice(1, words.indexOf('dist/amparo.mjs')),
    ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
  ]
})()
const startApi = (cli: string, env: NodeJS.ProcessEnv, logFile?: string) =>
  startServer([...START_FLAGS, cli, 'serve', ...(args['no-worker'] ? ['--no-worker'] : [])], env, logFile)

/** PostgreSQL: a connection to the bench database, to find the API's backends (their CPU counts). */
let pgClient: pg.Client | null = null
/** The PostgreSQL database of an API process serving another one than the bench database. */
const databaseOf = new WeakMap<Server, string>()
const backends = async (server: Server) =>
  pgClient
    ? (
        await pgClient.query<{ pid: number }>(
          'select pid from pg_stat_activity where datname = coalesce($1, current_database()) and pid <> pg_backend_pid()',
          [databaseOf.get(server) ?? null],
        )
      ).rows.map((r) => Number(r.pid))
    : []

/** Load on `server` for `seconds` (after `warm` seconds of warm-up); CPU counted until it drained its queue. */
async function measure(server: Server, requests: Request[], seconds: number, warm = warmup as number) {
  const options = {
    port: server.port,
    connections: connections as number,
    requests,
    timeoutS: args.scale ? 120 : 10,
  }
  if (warm > 0) await runLoad({ ...options, seconds: warm })
  const pids = [server.pid, ...(await backends(server))]
  await waitIdle(pids)
  const before = cpuUs(pids)
  const m = await runLoad({ ...options, seconds })
  m.cpuUs = cpuUs(pids) - before
  await waitIdle(pids)
  return m
}

const f = (n: number | undefined, digits = 0) =>
  n === undefined || !Number.isFinite(n)
    ? ''
    : n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })

interface Row {
  name: string
  runs: Measurement[]
  floorUs?: number
  statements?: number
  verdicts: string[]
}

function table(rows: Row[], baseUs: number): string {
  const head =
    '| scenario | req/s | p50 ms | p99 ms | CPU µs/req | floor µs/req | ÷ base | ÷ floor | verdicts |'
  const lines = rows.map((row) => {
    const s = summary(row.runs)
    const cells = [
      row.name,
      f(s.rps),
      f(s.p50, 2),
      f(s.p99, 2),
      f(s.us),
      row.floorUs === undefined ? '' : `${f(row.floorUs)} (${row.statements} st.)`,
      row.name.startsWith('base') ? '' : f(baseUs / s.us, 2),
      row.floorUs === undefined ? '' : f(row.floorUs / s.us, 2),
      [s.problems && `INVALID: ${s.problems}`, ...row.verdicts].filter(Boolean).join('; '),
    ]
    return `| ${cells.join(' | ')} |`
  })
  return [head, `|${' --- |'.repeat(9)}`, ...lines].join('\n')
}

async function admin(statement: string) {
  const client = new pg.Client({ connectionString: args['pg-url'] })
  await client.connect()
  await client.query(statement).finally(() => client.end())
}

/** A new empty database for the run (PostgreSQL: `amparo_bench_<random>`), removed at the end. */
async function freshDatabase(name: string): Promise<Database> {
  if (kind === 'sqlite') return { kind, file: join(tmp, `${name}.sqlite`) }
  const created = `amparo_bench_${randomBytes(4).toString('hex')}`
  await admin(`create database ${created}`)
  undo.push(() => admin(`drop database if exists ${created} with (force)`))
  const url = new URL(args['pg-url'] as string)
  url.pathname = `/${created}`
  return { kind, url: url.toString() }
}

/**
 * The migrations (up to `lastMigration` if given), the demo and `counts[i]` subscriptions for the
 * i-th partner, in-process.
 */
async function setUpDatabase(env: NodeJS.ProcessEnv, counts: number[], lastMigration?: string) {
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' })
  const db = createDb(config.database)
  try {
    await (lastMigration ? migrateTo(db, lastMigration) : migrateToLatest(db))
    const demo = await loadDemo(db, config, new Date().toISOString())
    const partners = await seed(db, kind === 'postgres', counts)
    const claims = args.claims
      ? await seedClaims(db, partners, Number(args['claims-count']), config.timeZone)
      : undefined
    if (args.endpoint) {
      const receiver = await startReceiver()
      undo.push(() => receiver.close())
      for (const { id } of partners) await addEndpoint(db, id, `${receiver.url}/ok`)
    }
    const version = kind === 'sqlite' ? sql`'SQLite ' || sqlite_version()` : sql`version()`
    const engine = await sql<{ v: string }>`select ${version} as v`.execute(db)
    // The file alone is whole, to be copied (--against).
    if (kind === 'sqlite') await sql`pragma wal_checkpoint(truncate)`.execute(db)
    return { demo: demo.partners, partners, claims, engine: String(engine.rows[0]?.v).split(' on ')[0] }
  } finally {
    await db.destroy()
  }
}

/** A session (token) for each seeded partner, logged in at the API on `port`. */
async function logIn(port: number, setUp: Awaited<ReturnType<typeof setUpDatabase>>): Promise<Session[]> {
  const sessions: Session[] = []
  for (const partner of setUp.partners) {
    const { client_id, client_secret } = setUp.demo.find((d) => d.id === partner.id) ?? {}
    const login = await call(port, '/auth/login', undefined, JSON.stringify({ client_id, client_secret }))
    check(login.status === 200, `login of partner ${partner.id}: ${login.status} ${login.text}`)
    sessions.push({ partner, token: String(login.json.token) })
  }
  return sessions
}

/**
 * --scale's (d): a contract's CPU on this database against one of 2,000 subscriptions served by a
 * second API process, the measured seconds alternating between the two in ≈ 2 s slices (what a
 * contract writes grows with the whole database, not with one partner's share of it).
 */
async function contractsAtScale(server: Server, sessions: Session[]) {
  log('(d) contracts on a database of 2,000 subscriptions and on this one, alternating…')
  const small = await freshDatabase('small')
  const smallEnv = serviceEnv(small)
  const smallSetUp = await setUpDatabase(smallEnv, [1000, 1000])
  const smallApi = await startApi(CLI, smallEnv, join(tmp, 'small-api.log'))
  if (small.kind === 'postgres') databaseOf.set(smallApi, new URL(small.url).pathname.slice(1))
  const sides = [
    { server: smallApi, requests: requestsOf(makers(await logIn(smallApi.port, smallSetUp)).d) },
    { server, requests: requestsOf(makers(sessions).d) },
  ]
  const runs: Measurement[][] = [[], []]
  for (const side of sides) await measure(side.server, side.requests, warmup || 0.5, 0)
  const slices = Math.max(2, Math.round((duration as number) / 2))
  for (let k = 0; k < slices; k++)
    for (const i of k % 2 ? [1, 0] : [0, 1]) {
      const side = sides[i] as (typeof sides)[number]
      runs[i]?.push(await measure(side.server, side.requests, (duration as number) / slices, 0))
    }
  await stop(smallApi.child)
  const [at2k, atLarge] = runs.map(summary) as [ReturnType<typeof summary>, ReturnType<typeof summary>]
  for (const [label, s] of [
    ['2,000', at2k],
    [f(subscriptions), atLarge],
  ] as const)
    log(`  a contract at ${label} subscriptions: ${f(s.us)} µs, p50 ${f(s.p50, 2)} ms ${s.problems}`)
  const ratio = atLarge.us / at2k.us
  log(
    `${ratio <= MAX_CONTRACT_SCALE_RATIO ? 'ok' : 'FAIL'} a contract at ${f(subscriptions)} subscriptions costs ${f(ratio, 2)} × one at 2,000 (≤ ${MAX_CONTRACT_SCALE_RATIO} ×)`,
  )
}

/** --claims: (g) uploads first (the memory they add is read from the process at rest), (e), (f) against (b). */
async function claimsBench(
  server: Server,
  sessions: Session[],
  seeded: Awaited<ReturnType<typeof seedClaims>>,
  subscriptionsPage: () => Call,
) {
  const make = claimMakers(sessions, seeded.openable, seeded.claims)
  const ok = (met: boolean) => (met ? 'ok' : 'FAIL')
  const upload = await uploadBench(server.port, server, make.e, 5)
  const slowest = Math.max(...upload.runs.map((r) => r.cpuMs))
  const growth = upload.growthMb / upload.fileMb
  log(`(g) 10 MiB uploads: ${upload.runs.map((r) => `${f(r.ms)} ms (CPU ${f(r.cpuMs)} ms)`).join(', ')}`)
  log(
    `${ok(slowest <= CLAIMS.uploadMs)} the slowest took ${f(slowest)} ms of server CPU (≤ ${CLAIMS.uploadMs} ms)`,
  )
  log(
    `${ok(growth <= CLAIMS.memoryTimesFile)} peak memory rose ${f(upload.growthMb, 1)} MB, ${f(growth, 2)} × the file (≤ ${CLAIMS.memoryTimesFile} ×)`,
  )
  const rows: Row[] = []
  for (const [name, maker] of [
    [`(e) POST /claims`, make.e],
    ['(f) GET /claims, a page of 15', make.f],
    ['(b) GET /subscriptions, a page of 15', subscriptionsPage],
  ] as const) {
    log(`${name}…`)
    rows.push({ name, runs: [await measure(server, requestsOf(maker), duration as number)], verdicts: [] })
  }
  const [opening, claimsPage, page] = rows.map((row) => summary(row.runs)) as [
    ReturnType<typeof summary>,
    ReturnType<typeof summary>,
    ReturnType<typeof summary>,
  ]
  log(`\n${table(rows, Number.NaN)}\n`)
  log(`${ok(opening.p99 <= CLAIMS.p99Ms)} (e) p99 ${f(opening.p99, 2)} ms (≤ ${CLAIMS.p99Ms} ms)`)
  const ratio = claimsPage.us / page.us
  log(
    `${ok(ratio <= CLAIMS.pageRatio)} (f) a page of claims costs ${f(ratio, 2)} × (b)'s (≤ ${CLAIMS.pageRatio} ×)`,
  )
  const claims = [...seeded.claims.values()].reduce((a, b) => a + b, 0)
  log(`${f(subscriptions)} subscriptions, ${f(claims)} claims, ${connections} connections; load ${load()}`)
}

/** `work` on the run's database, migrated and holding the demo, closed after. */
async function onDemo<T>(
  env: NodeJS.ProcessEnv,
  work: (db: Db, config: Config, demo: DemoPartner[]) => Promise<T>,
): Promise<T> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' })
  const db = createDb(config.database)
  try {
    await migrateToLatest(db)
    return await work(db, config, (await loadDemo(db, config, new Date().toISOString())).partners)
  } finally {
    await db.destroy()
  }
}

function buildAgainst(rev: string) {
  log(`Building ${rev} in a temporary worktree…`)
  return buildRevision(rev, join(tmp, 'against'))
}

async function main() {
  log(
    `Amparo bench, ${kind}; ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; load ${load()}`,
  )
  if (!args['no-build']) run('npm', ['run', 'build'])
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`)
  tmp = mkdtempSync(join(tmpdir(), 'amparo-bench-'))
  const database = await freshDatabase('amparo')
  const env = serviceEnv(database)
  if (args.webhooks) {
    const count = Number(args.events)
    await onDemo(env, (db) =>
      webhooksBench({ db, cli: CLI, env, count, logFile: join(tmp, 'worker.log'), log }),
    )
    return log(`load ${load()}`)
  }
  if (args.recurrence) {
    await onDemo(env, (db, { timeZone }) =>
      recurrenceBench({ db, postgres: kind === 'postgres', timeZone, cli: CLI, env, log }),
    )
    return log(`load ${load()}`)
  }

  if (args.clock) {
    const { demo, partners } = await onDemo(env, async (db, _config, demo) => ({
      demo,
      partners: await seed(db, kind === 'postgres', [1, 0]),
    }))
    const server = await startApi(CLI, env, join(tmp, 'api.log'))
    const [other, advancing] = await Promise.all(
      partners.map(async (partner) => {
        const { client_id, client_secret } = demo.find((d) => d.id === partner.id) ?? {}
        const login = await call(
          server.port,
          '/auth/login',
          undefined,
          JSON.stringify({ client_id, client_secret }),
        )
        check(login.status === 200, `login of partner ${partner.id}: ${login.status} ${login.text}`)
        return { partner, token: String(login.json.token) }
      }),
    )
    check(advancing?.partner.gateway === 'own' && other, 'the second demo partner should use the own gateway')
    await clockBench({ port: server.port, advancing, other, log })
    await stop(server.child)
    return log(`load ${load()}`)
  }

  const revision = args.against ? buildAgainst(args.against) : undefined
  const large = args.scale ? subscriptions : Math.round(subscriptions * 0.6)
  const counts = args.scale ? [1000, large] : [large, subscriptions - large]
  log(`Migrating, loading the demo, seeding ${counts.map((n) => f(n)).join(' + ')} subscriptions…`)
  const seeding = performance.now()
  const setUp = await setUpDatabase(env, counts, revision?.lastMigration)
  log(`  ${((performance.now() - seeding) / 1000).toFixed(1)} s; ${setUp.engine}`)
  // Copied before this checkout's API migrates its database to its own schema.
  const older = revision && (await copyDatabase(database))
  if (database.kind === 'postgres') {
    // Connected only now: `create database … template` needs the seeded database without sessions.
    pgClient = new pg.Client({ connectionString: database.url })
    await pgClient.connect()
    undo.push(() => pgClient?.end())
  }

  const startups: number[] = []
  let api: Server | null = null
  for (let i = 0; i < 3; i++) {
    if (api) await stop(api.child)
    api = await startApi(CLI, env, join(tmp, 'api.log'))
    startups.push(api.startupMs)
  }
  const server = api as Server
  const restingRss = memoryOf(server.pid).rssMb
  const sessions = await logIn(server.port, setUp)

  if (args.scale) {
    const us: number[] = []
    for (const session of sessions) {
      const s = summary([await measure(server, requestsOf(makers([session]).b), duration as number)])
      us.push(s.us)
      log(
        `  a page of ${f(session.partner.subscriptions)}: ${f(s.us)} µs, p50 ${f(s.p50, 2)} ms ${s.problems}`,
      )
    }
    const ratio = (us[1] as number) / (us[0] as number)
    log(
      `${ratio <= MAX_SCALE_RATIO ? 'ok' : 'FAIL'} paging cost at ${f(large)} rows is ${f(ratio, 2)} × at 1,000 (≤ 2 ×)`,
    )
    await contractsAtScale(server, sessions)
    return
  }

  await sanityChecks(server.port, sessions)
  const make = makers(sessions)
  if (setUp.claims) return claimsBench(server, sessions, setUp.claims, make.b)

  if (revision && older) {
    await stop(server.child)
    const sides = [revision.cli, CLI]
    // One key for both sides: the sessions logged in at this checkout's API are used at both.
    const envs = [{ ...serviceEnv(older), AMPARO_JWT_KEYS: env.AMPARO_JWT_KEYS }, env]
    const slices = Math.max(1, Math.round((duration as number) / 2))
    const verdicts: string[] = []
    for (const id of only) {
      const requests = requestsOf(make[id])
      const runs: Measurement[][] = [[], []]
      for (let pair = 0; pair < (pairs as number); pair++) {
        // Two processes of one build differ by up to 25 % for life (JIT, memory layout, the core
        // they run on), so every pair is new, and which side starts and runs first alternates.
        const order = pair % 2 ? [1, 0] : [0, 1]
        const servers: Server[] = []
        for (const side of order) {
          const started = await startApi(sides[side] as string, envs[side] as NodeJS.ProcessEnv)
          if (older.kind === 'postgres' && side === 0)
            databaseOf.set(started, new URL(older.url).pathname.slice(1))
          servers[side] = started
        }
        for (const side of order)
          await runLoad({
            port: servers[side]?.port as number,
            connections: connections as number,
            seconds: warmup || 0.5,
            requests,
            timeoutS: 10,
          })
        const pairRuns: Measurement[][] = [[], []]
        for (let k = 0; k < slices; k++)
          for (const side of k % 2 ? [...order].reverse() : order)
            pairRuns[side]?.push(
              await measure(servers[side] as Server, requests, (duration as number) / slices, 0),
            )
        for (const s of servers) await stop(s.child)
        const [before, after] = pairRuns.map(summary) as [
          ReturnType<typeof summary>,
          ReturnType<typeof summary>,
        ]
        runs[0]?.push(...(pairRuns[0] ?? []))
        runs[1]?.push(...(pairRuns[1] ?? []))
        const problems = [before.problems, after.problems].filter(Boolean).join(', ')
        log(
          `  (${id}) pair ${pair + 1}: before ${f(before.us, 1)} µs, after ${f(after.us, 1)} µs ${problems && `INVALID: ${problems}`}`,
        )
      }
      const [before, after] = runs.map((r) => summary(r).us) as [number, number]
      const change = 100 * (after / before - 1)
      verdicts.push(
        `${after <= before * 1.05 ? 'ok' : 'FAIL'} (${id}) ${TITLES[id]}: before ${f(before, 1)} µs, after ${f(after, 1)} µs a request (${change >= 0 ? '+' : ''}${f(change, 1)} %)`,
      )
    }
    log(
      `\n${revision.commit} (before) against this checkout (after), ${kind}, ${pairs} pairs; load ${load()}`,
    )
    for (const v of verdicts) log(v)
    log('(within 5 % or better: ok)')
    return
  }

  // The bare servers answer a real subscription resource, byte for byte.
  const owner = sessions[0] as Session
  const sample = await call(server.port, `/subscriptions/${owner.partner.firstId}`, owner.token)
  check(sample.status === 200, `GET /subscriptions/${owner.partner.firstId}: ${sample.status}`)
  const bodyFile = join(tmp, 'body.json')
  writeFileSync(bodyFile, JSON.stringify(sample.json))
  const bare = (logFile?: string) =>
    startServer([join(ROOT, 'bench/bare-server.mjs')], {
      PATH: process.env.PATH,
      BARE_BODY_FILE: bodyFile,
      ...(logFile && { BARE_LOG_FILE: logFile }),
    })
  const [plain, logged] = [await bare(), await bare(join(tmp, 'bare.log'))]
  const baseline: Request[] = [{ method: 'GET', path: '/baseline' }]
  const baseRow: Row = { name: 'base: bare Fastify', runs: [], verdicts: [] }
  const loggedRow: Row = { name: 'base+log: bare Fastify + request log', runs: [], verdicts: [] }
  // The bare servers run half their seconds before the scenarios and half after: the machine drifts.
  const bareRuns = async () => {
    log('Bare servers…')
    baseRow.runs.push(await measure(plain, baseline, (duration as number) / 2))
    loggedRow.runs.push(await measure(logged, baseline, (duration as number) / 2))
  }
  await bareRuns()

  log(`The floor: recording the requests' SQL in-process, replaying it on a bare ${kind} connection…`)
  const recorded = await record(
    env,
    database,
    join(tmp, 'record.sqlite'),
    Object.fromEntries(only.map((id) => [id, make[id]])),
    100,
  )
  const rows: Row[] = []
  for (const id of only) {
    const floor = await replay(database, recorded.get(id) ?? [], Math.min(duration as number, 3))
    log(`  (${id}) ${floor.statements} statements: ${f(floor.us, 1)} µs`)
    rows.push({
      name: `(${id}) ${TITLES[id]}`,
      runs: [],
      floorUs: floor.us,
      statements: floor.statements,
      verdicts: [],
    })
  }
  for (const [i, id] of only.entries()) {
    log(`(${id}) ${TITLES[id]}…`)
    rows[i]?.runs.push(await measure(server, requestsOf(make[id]), duration as number))
  }
  await bareRuns()
  const memory = memoryOf(server.pid)
  await stop(server.child)

  const baseUs = summary(baseRow.runs).us
  const loggedUs = summary(loggedRow.runs).us
  let met = 0
  let checked = 0
  const verdict = (ok: boolean, text: string) => {
    checked += 1
    met += ok ? 1 : 0
    return `${ok ? 'ok' : 'FAIL'} ${text}`
  }
  for (const [i, id] of only.entries()) {
    const row = rows[i] as Row
    const s = summary(row.runs)
    row.floorUs = (row.floorUs as number) + loggedUs
    if (kind !== 'sqlite') continue
    row.verdicts.push(verdict(row.floorUs / s.us >= FLOOR_TARGETS[id], `÷ floor ≥ ${FLOOR_TARGETS[id]}`))
    const limit = P99_MS[id === 'd' ? 'write' : 'read']
    row.verdicts.push(verdict(s.p99 <= limit, `p99 ≤ ${limit} ms`))
  }
  const startup = [...startups].sort((a, b) => a - b)[1] as number
  log(`\n${table([baseRow, loggedRow, ...rows], baseUs)}\n`)
  const rss = `peak RSS ${f(memory.hwmMb)} MB (${f(restingRss)} at rest) ≤ ${MAX_RSS_MB} MB`
  log(verdict(memory.hwmMb <= MAX_RSS_MB, rss))
  const starts = startups.map((s) => f(s)).join(', ')
  log(
    verdict(
      startup <= MAX_STARTUP_MS,
      `start-up ${f(startup)} ms (median of ${starts}) ≤ ${MAX_STARTUP_MS} ms`,
    ),
  )
  log(
    `${met} of ${checked} verdicts met. floor = base+log (${f(loggedUs, 1)} µs) + the request's SQL on a bare driver.`,
  )
  log(
    `${f(subscriptions)} subscriptions, ${connections} connections, ${warmup} + ${duration} s a scenario; load ${load()}`,
  )
}

main()
  .then(() => cleanup())
  .then(() => process.exit(0))
  .catch(async (error: unknown) => {
    process.stderr.write(
      `\nbench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    await cleanup()
    process.exit(1)
  })
