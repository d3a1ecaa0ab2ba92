// `npm run bench`: the API under load beside a bare Fastify server and the floor. docs/benchmarks.md.
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
  call,
  check,
  f,
  type Measurement,
  makers,
  type Row,
  requestsOf,
  runLoad,
  type ScenarioId,
  type Session,
  type Summary,
  summary,
  TITLES,
  table,
  verdict,
} from './lib/load.js'
import { cpuUs, memoryOf, run, type Server, startServer, stop, stopAll, waitIdle } from './lib/proc.js'
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
const MAX_AGAINST_RATIO = 1.05
const CLAIMS = { p99Ms: 50, uploadMs: 500, memoryTimesFile: 3, pageRatio: 1.2 }

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = join(ROOT, 'dist/amparo.mjs')

const HELP = `npm run bench -- [options]
  --db sqlite|postgres   database (default sqlite; postgres: a fresh database, dropped at the end)
  --pg-url URL           the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
  --subscriptions N      subscriptions seeded over the 2 demo partners: 100000, or 1000000 with --scale
  --duration S           measured seconds a scenario (default 10)
  --warmup S             warm-up seconds before each scenario (default 2)
  --connections N        concurrent connections (default 50)
  --only a,b,c,d         scenarios to run (default a,b,c,d)
  --against REV          instead: REV (built in a temporary git worktree) against this checkout,
                         server CPU a request, in --pairs N (default 6) fresh pairs of API processes
  --pairs N              see --against (default 6)
  --scale                instead: (b) for a partner with 1,000 and one with --subscriptions,
                         then (d) on that database against one of 2,000 subscriptions
  --recurrence           instead: 2,000 due installments charged by 1, then 2 workers at a 300 ms fake Stripe
  --webhooks             instead: --events N events (default 10000) delivered by 1 worker to a local
                         receiver, then another partner's lag beside an endpoint that hangs
  --events N             see --webhooks (default 10000)
  --claims               instead: --claims-count N claims (default 10000) seeded over the subscriptions,
                         then (g) 10 MiB uploads, (e) openings, (f) pages of claims against (b)'s
  --claims-count N       see --claims (default 10000)
  --clock                instead: another partner's p99 while one partner's sandbox clock moves 400 days
                         over 150 paid subscriptions, and the 409 of a second advance meanwhile
  --endpoint             each seeded partner has an enabled webhook endpoint (a local receiver answering 200)
  --no-worker            serve without its in-process jobs and delivery (SQLite): the write path alone
  --no-build             use dist/ as it is (default: npm run build first)
  --time-limit MIN       stop everything after MIN minutes: 15, or 45 with --against or --scale
  --help                 this text
`
/** The parser's options, read from HELP: `--name ARG` takes a value, `(default X` gives its default. */
const OPTIONS = Object.fromEntries(
  [...HELP.matchAll(/^ {2}--([\w-]+)( \S+)?(?:.*?\(default ([^;)\s]+))?/gm)].map(
    ([, name, arg, fallback]) => [
      name as string,
      arg ? { type: 'string' as const, default: fallback } : { type: 'boolean' as const },
    ],
  ),
)
const args = (() => {
  try {
    return parseArgs({ options: OPTIONS }).values as Record<string, string | boolean | undefined>
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${HELP}`)
    process.exit(2)
  }
})()
if (args.help) {
  process.stdout.write(HELP)
  process.exit(0)
}
const mode = (['against', 'scale', 'recurrence', 'webhooks', 'claims', 'clock'] as const).find((m) => args[m])
const kind = args.db as 'sqlite' | 'postgres'
const numbers = ['duration', 'warmup', 'connections', 'pairs', 'events'].map((name) => Number(args[name]))
const [duration, warmup, connections, pairs, events] = numbers as [number, number, number, number, number]
const subscriptions = Number(args.subscriptions ?? (mode === 'scale' ? 1_000_000 : 100_000))
const only = String(args.only)
  .split(',')
  .map((s) => s.trim()) as ScenarioId[]
if (
  (kind !== 'sqlite' && kind !== 'postgres') ||
  ![duration, connections, subscriptions, pairs, events].every((n) => n > 0) ||
  !(warmup >= 0) ||
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
const limitMin = Number(args['time-limit'] ?? (mode === 'against' || mode === 'scale' ? 45 : 15))
setTimeout(() => {
  log(`\nbench: time limit of ${limitMin} min reached; stopping`)
  void cleanup().finally(() => process.exit(3))
}, limitMin * 60_000).unref()

/**
 * REV checked out in a detached git worktree and built there, with this checkout's node_modules;
 * `lastMigration` is its newest migration. Its migrations must be a prefix of this checkout's: its
 * side serves a copy of the seeded database migrated down to its schema.
 */
function buildRevision(rev: string) {
  log(`Building ${rev} in a temporary worktree…`)
  const dir = join(tmp, 'against')
  const commit = run('git', ['rev-parse', '--short', `${rev}^{commit}`], ROOT)
  const migrations = (r: string) =>
    run('git', ['ls-tree', '--name-only', r, 'src/db/migrations/'], ROOT)
      .split('\n')
      .map((path) => /\/(\d{4}-[^/]+)\.ts$/.exec(path)?.[1])
      .filter((name): name is string => name !== undefined)
  const [before, after] = [migrations(commit), migrations('HEAD')]
  if (before.length === 0 || before.some((name, i) => after[i] !== name))
    throw new Error(
      `${rev}'s migrations are not a prefix of this checkout's: --against cannot seed one database for both`,
    )
  run('git', ['worktree', 'add', '--detach', dir, commit], ROOT)
  undo.push(() => run('git', ['worktree', 'remove', '--force', dir], ROOT))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  run('npm', ['run', 'build'], dir)
  return { commit, cli: join(dir, 'dist/amparo.mjs'), lastMigration: before.at(-1) as string }
}

async function admin(statement: string) {
  const client = new pg.Client({ connectionString: args['pg-url'] as string })
  await client.connect()
  await client.query(statement).finally(() => client.end())
}

/** A new database for the run (PostgreSQL: `amparo_bench_<random>`, empty or copied from `template`). */
async function freshDatabase(name: string, template?: Database): Promise<Database> {
  if (kind === 'sqlite') {
    const file = join(tmp, `${name}.sqlite`)
    if (template?.kind === 'sqlite') copyFileSync(template.file, file)
    return { kind, file }
  }
  const created = `amparo_bench_${randomBytes(4).toString('hex')}`
  const from = template?.kind === 'postgres' ? ` template ${databaseName(template)}` : ''
  await admin(`create database ${created}${from}`)
  undo.push(() => admin(`drop database if exists ${created} with (force)`))
  const url = new URL(args['pg-url'] as string)
  url.pathname = `/${created}`
  return { kind, url: url.toString() }
}
const databaseName = (database: Database) =>
  database.kind === 'postgres' ? new URL(database.url).pathname.slice(1) : undefined

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
  const words: string[] = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start.split(
    /\s+/,
  )
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)
  return [...words.slice(1, words.indexOf('dist/amparo.mjs')), ...extra]
})()

/** PostgreSQL: a connection to the bench database, to find the API's backends (their CPU counts). */
let pgClient: pg.Client | null = null
/** The PostgreSQL database of each API process. */
const databaseOf = new WeakMap<Server, string>()
/** Servers idle since their last load: no need to wait for their queue to drain again. */
const drained = new WeakSet<Server>()

async function startApi(database: Database, env: NodeJS.ProcessEnv, cli = CLI, logFile?: string) {
  const worker = args['no-worker'] ? ['--no-worker'] : []
  const server = await startServer([...START_FLAGS, cli, 'serve', ...worker], env, logFile)
  if (database.kind === 'postgres') databaseOf.set(server, new URL(database.url).pathname.slice(1))
  return server
}

async function backends(server: Server) {
  const name = databaseOf.get(server)
  if (!pgClient || !name) return []
  const query = 'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()'
  return (await pgClient.query<{ pid: number }>(query, [name])).rows.map((r) => Number(r.pid))
}

const warm = (server: Server, requests: Request[], seconds = warmup || 0.5) => {
  drained.delete(server)
  return runLoad({ port: server.port, connections, requests, seconds, timeoutS: mode === 'scale' ? 120 : 10 })
}

/** Load on `server` for `seconds` (after `warmS` of warm-up); CPU counted until it drained its queue. */
async function measure(server: Server, requests: Request[], seconds = duration, warmS = warmup) {
  if (warmS > 0) await warm(server, requests, warmS)
  const pids = [server.pid, ...(await backends(server))]
  if (!drained.has(server)) await waitIdle(pids)
  const before = cpuUs(pids)
  const m = await warm(server, requests, seconds)
  m.cpuUs = cpuUs(pids) - before
  await waitIdle(pids)
  drained.add(server)
  return m
}

/** `work` on the database of `env`, migrated and holding the demo. */
async function onDemo<T>(
  env: NodeJS.ProcessEnv,
  work: (db: Db, config: Config, demo: DemoPartner[]) => Promise<T>,
) {
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' })
  const db = createDb(config.database)
  try {
    await migrateToLatest(db)
    return await work(db, config, (await loadDemo(db, config, new Date().toISOString())).partners)
  } finally {
    await db.destroy()
  }
}

/** The demo and `counts[i]` subscriptions for the i-th partner (and the claims with --claims). */
const setUpDatabase = (env: NodeJS.ProcessEnv, counts: number[]) =>
  onDemo(env, async (db, config, demo) => {
    const partners = await seed(db, kind === 'postgres', counts)
    const count = Number(args['claims-count'])
    const claims = args.claims ? await seedClaims(db, partners, count, config.timeZone) : undefined
    if (args.endpoint) {
      const receiver = await startReceiver()
      undo.push(() => receiver.close())
      for (const { id } of partners) await addEndpoint(db, id, `${receiver.url}/ok`)
    }
    const version = kind === 'sqlite' ? sql`'SQLite ' || sqlite_version()` : sql`version()`
    const engine = await sql<{ v: string }>`select ${version} as v`.execute(db)
    return { demo, partners, claims, engine: String(engine.rows[0]?.v).split(' on ')[0] }
  })
type SetUp = Awaited<ReturnType<typeof setUpDatabase>>

/** A session (token) for each seeded partner, logged in at the API on `port`. */
async function logIn(port: number, { demo, partners }: Pick<SetUp, 'demo' | 'partners'>) {
  const sessions: Session[] = []
  for (const partner of partners) {
    const { client_id, client_secret } = demo.find((d) => d.id === partner.id) ?? {}
    const login = await call(port, '/auth/login', undefined, JSON.stringify({ client_id, client_secret }))
    check(login.status === 200, `login of partner ${partner.id}: ${login.status} ${login.text}`)
    sessions.push({ partner, token: String(login.json.token) })
  }
  return sessions
}

/** The run's database and its service environment: what each mode starts from. */
interface Run {
  database: Database
  env: NodeJS.ProcessEnv
}

/**
 * The seeded database (60 / 40 % of --subscriptions unless `counts`), its API started `starts`
 * times (the last kept; start-up is spawn to the first 200 of /health), the partners logged in, the
 * sanity checks passed unless `sane` is false. With `lastMigration`: a copy of the seeded database
 * (SQLite: the file; PostgreSQL: `create database … template`) migrated down to it, for an older revision.
 */
async function serve(
  { database, env }: Run,
  o: { counts?: number[]; starts?: number; sane?: boolean; lastMigration?: string } = {},
) {
  const large = Math.round(subscriptions * 0.6)
  const counts = o.counts ?? [large, subscriptions - large]
  log(`Migrating, loading the demo, seeding ${counts.map((n) => f(n)).join(' + ')} subscriptions…`)
  const seeding = performance.now()
  const setUp = await setUpDatabase(env, counts)
  log(`  ${((performance.now() - seeding) / 1000).toFixed(1)} s; ${setUp.engine}`)
  const older = o.lastMigration ? await freshDatabase('against', database) : undefined
  if (older) {
    const db = createDb(loadConfig({ ...serviceEnv(older), LOG_LEVEL: 'silent' }).database)
    await migrateTo(db, o.lastMigration as string).finally(() => db.destroy())
  }
  if (database.kind === 'postgres') {
    // Connected only now: `create database … template` needs the seeded database without sessions.
    pgClient = new pg.Client({ connectionString: database.url })
    await pgClient.connect()
    undo.push(() => pgClient?.end())
  }
  const startups: number[] = []
  let server: Server | undefined
  for (let i = 0; i < (o.starts ?? 1); i++) {
    if (server) await stop(server.child)
    server = await startApi(database, env, CLI, join(tmp, 'api.log'))
    startups.push(server.startupMs)
  }
  const api = server as Server
  const sessions = await logIn(api.port, setUp)
  if (o.sane !== false) await sanityChecks(api.port, sessions)
  return { setUp, server: api, sessions, startups, older }
}

/** The scenarios a–d against the bare servers and the floor, with the targets' verdicts. */
async function scenarios(r: Run) {
  const { env, database } = r
  // Start-up is the median of 3 starts; a run of < 3 s a scenario (a smoke run) checks one, cheaper.
  const { server, sessions, startups } = await serve(r, { starts: duration < 3 ? 1 : 3 })
  const restingRss = memoryOf(server.pid).rssMb
  const make = makers(sessions)

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
    baseRow.runs.push(await measure(plain, baseline, duration / 2))
    loggedRow.runs.push(await measure(logged, baseline, duration / 2))
  }
  await bareRuns()

  log(`The floor: recording the requests' SQL in-process, replaying it on a bare ${kind} connection…`)
  const calls = Object.fromEntries(only.map((id) => [id, make[id]]))
  const recorded = await record(env, database, join(tmp, 'record.sqlite'), calls, 100)
  const rows: Row[] = []
  for (const id of only) {
    const floor = await replay(database, recorded.get(id) ?? [], Math.min(duration, 3))
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
    rows[i]?.runs.push(await measure(server, requestsOf(make[id])))
  }
  await bareRuns()
  const memory = memoryOf(server.pid)
  await stop(server.child)

  const [baseUs, loggedUs] = [summary(baseRow.runs).us, summary(loggedRow.runs).us]
  for (const [i, id] of only.entries()) {
    const row = rows[i] as Row
    const { us, p99 } = summary(row.runs)
    row.floorUs = (row.floorUs as number) + loggedUs
    const limit = P99_MS[id === 'd' ? 'write' : 'read']
    if (kind === 'sqlite')
      row.verdicts.push(
        verdict(row.floorUs / us >= FLOOR_TARGETS[id], `÷ floor ≥ ${FLOOR_TARGETS[id]}`),
        verdict(p99 <= limit, `p99 ≤ ${limit} ms`),
      )
  }
  const startup = [...startups].sort((a, b) => a - b)[startups.length >> 1] as number
  const [rss, starts] = [
    `${f(memory.hwmMb)} MB (${f(restingRss)} at rest)`,
    startups.map((s) => f(s)).join(', '),
  ]
  const service = [
    verdict(memory.hwmMb <= MAX_RSS_MB, `peak RSS ${rss} ≤ ${MAX_RSS_MB} MB`),
    verdict(
      startup <= MAX_STARTUP_MS,
      `start-up ${f(startup)} ms (median of ${starts}) ≤ ${MAX_STARTUP_MS} ms`,
    ),
  ]
  log(`\n${table([baseRow, loggedRow, ...rows], baseUs)}\n\n${service.join('\n')}`)
  const verdicts = [...rows.flatMap((row) => row.verdicts), ...service]
  const met = `${verdicts.filter((v) => v.startsWith('ok')).length} of ${verdicts.length} verdicts met`
  log(`${met}. floor = base+log (${f(loggedUs, 1)} µs) + the request's SQL on a bare driver.`)
  log(`${f(subscriptions)} subscriptions, ${connections} connections, ${warmup} + ${duration} s a scenario`)
}

/**
 * Each side's CPU a request for `requests`, the measured seconds alternating between the two in
 * ≈ 2 s slices after a warm-up of each (the machine drifts; two processes started together meet it alike).
 */
async function alternate(sides: Server[], requests: Request[][], order = [0, 1]) {
  for (const i of order) await warm(sides[i] as Server, requests[i] as Request[])
  const runs: Measurement[][] = [[], []]
  const slices = Math.max(2, Math.round(duration / 2))
  for (let k = 0; k < slices; k++)
    for (const i of k % 2 ? [...order].reverse() : order)
      runs[i]?.push(await measure(sides[i] as Server, requests[i] as Request[], duration / slices, 0))
  return runs
}

/**
 * --scale: (b) for the partner of 1,000 and the one of --subscriptions; then (d) on this database
 * against one of 2,000 subscriptions served by a second API process (what a contract writes grows
 * with the whole database, not with one partner's share of it).
 */
async function scale(r: Run) {
  const { server, sessions } = await serve(r, { counts: [1000, subscriptions], sane: false })
  const us: number[] = []
  for (const session of sessions) {
    const s = summary([await measure(server, requestsOf(makers([session]).b))])
    us.push(s.us)
    log(`  a page of ${f(session.partner.subscriptions)}: ${f(s.us)} µs, p50 ${f(s.p50, 2)} ms ${s.problems}`)
  }
  const ratio = (us[1] as number) / (us[0] as number)
  const paging = `paging cost at ${f(subscriptions)} rows is ${f(ratio, 2)} × at 1,000`
  log(verdict(ratio <= MAX_SCALE_RATIO, `${paging} (≤ ${MAX_SCALE_RATIO} ×)`))

  log(`(d) ${TITLES.d} on a database of 2,000 subscriptions and on this one, alternating…`)
  const small = await freshDatabase('small')
  const smallEnv = serviceEnv(small)
  const smallSetUp = await setUpDatabase(smallEnv, [1000, 1000])
  const smallApi = await startApi(small, smallEnv, CLI, join(tmp, 'small-api.log'))
  const requests = [makers(await logIn(smallApi.port, smallSetUp)).d, makers(sessions).d].map(requestsOf)
  const [at2k, atLarge] = (await alternate([smallApi, server], requests)).map(summary) as [Summary, Summary]
  await stop(smallApi.child)
  for (const [label, s] of [['2,000', at2k] as const, [f(subscriptions), atLarge] as const])
    log(`  a contract at ${label} subscriptions: ${f(s.us)} µs, p50 ${f(s.p50, 2)} ms ${s.problems}`)
  const contracts = atLarge.us / at2k.us
  const text = `a contract at ${f(subscriptions)} subscriptions costs ${f(contracts, 2)} × one at 2,000`
  log(verdict(contracts <= MAX_CONTRACT_SCALE_RATIO, `${text} (≤ ${MAX_CONTRACT_SCALE_RATIO} ×)`))
}

/** --against REV: each scenario's CPU a request, REV's build against this checkout's, in fresh pairs. */
async function against(r: Run) {
  const revision = buildRevision(args.against as string)
  const { server, sessions, older } = await serve(r, { lastMigration: revision.lastMigration })
  await stop(server.child)
  const olderDb = older as Database
  const clis = [revision.cli, CLI]
  // One key for both sides: the sessions logged in at this checkout's API are used at both.
  const envs = [{ ...serviceEnv(olderDb), AMPARO_JWT_KEYS: r.env.AMPARO_JWT_KEYS }, r.env]
  const make = makers(sessions)
  const verdicts: string[] = []
  for (const id of only) {
    const requests = requestsOf(make[id])
    const runs: Measurement[][] = [[], []]
    for (let pair = 0; pair < pairs; pair++) {
      // Two processes of one build differ by up to 25 % for life (JIT, memory layout, the core
      // they run on), so every pair is new, and which side starts and runs first alternates.
      const order = pair % 2 ? [1, 0] : [0, 1]
      const servers: Server[] = []
      for (const side of order)
        servers[side] = await startApi(
          [olderDb, r.database][side] as Database,
          envs[side] as NodeJS.ProcessEnv,
          clis[side],
        )
      const measured = await alternate(servers, [requests, requests], order)
      for (const s of servers) await stop(s.child)
      for (const [i, side] of measured.entries()) runs[i]?.push(...side)
      const [before, after] = measured.map(summary) as [Summary, Summary]
      const problems = [before.problems, after.problems].filter(Boolean).join(', ')
      const figures = `before ${f(before.us, 1)} µs, after ${f(after.us, 1)} µs`
      log(`  (${id}) pair ${pair + 1}: ${figures} ${problems && `INVALID: ${problems}`}`)
    }
    const [before, after] = runs.map((side) => summary(side).us) as [number, number]
    const change = 100 * (after / before - 1)
    const figures = `before ${f(before, 1)} µs, after ${f(after, 1)} µs a request (${change >= 0 ? '+' : ''}${f(change, 1)} %)`
    verdicts.push(verdict(after <= before * MAX_AGAINST_RATIO, `(${id}) ${TITLES[id]}: ${figures}`))
  }
  log(`\n${revision.commit} (before) against this checkout (after), ${kind}, ${pairs} pairs`)
  for (const v of verdicts) log(v)
  log('(within 5 % or better: ok)')
}

/** --claims: (g) uploads first (the memory they add is read from the process at rest), (e), (f) against (b). */
async function claims(r: Run) {
  const { server, sessions, setUp } = await serve(r)
  const seeded = setUp.claims as NonNullable<SetUp['claims']>
  const make = claimMakers(sessions, seeded.openable, seeded.claims)
  const upload = await uploadBench(server.port, server, make.e, 5)
  const slowest = Math.max(...upload.runs.map((u) => u.cpuMs))
  const growth = upload.growthMb / upload.fileMb
  log(
    `(g) 10 MiB uploads: ${upload.runs.map((u) => `${f(u.ms)} ms (CPU ${f(u.cpuMs)} ms, +${f(u.growthMb, 1)} MB)`).join(', ')}`,
  )
  const cpu = `the slowest took ${f(slowest)} ms of server CPU`
  log(verdict(slowest <= CLAIMS.uploadMs, `${cpu} (≤ ${CLAIMS.uploadMs} ms)`))
  const peak = `peak memory rose ${f(upload.growthMb, 1)} MB, ${f(growth, 2)} × the file`
  log(verdict(growth <= CLAIMS.memoryTimesFile, `${peak} (≤ ${CLAIMS.memoryTimesFile} ×)`))
  const rows: Row[] = []
  for (const [name, maker] of [
    ['(e) POST /claims', make.e],
    ['(f) GET /claims, a page of 15', make.f],
    ['(b) GET /subscriptions, a page of 15', makers(sessions).b],
  ] as [string, () => Call][]) {
    log(`${name}…`)
    rows.push({ name, runs: [await measure(server, requestsOf(maker))], verdicts: [] })
  }
  const [opening, claimsPage, page] = rows.map((row) => summary(row.runs)) as [Summary, Summary, Summary]
  log(`\n${table(rows)}\n`)
  log(verdict(opening.p99 <= CLAIMS.p99Ms, `(e) p99 ${f(opening.p99, 2)} ms (≤ ${CLAIMS.p99Ms} ms)`))
  const ratio = claimsPage.us / page.us
  const pages = `(f) a page of claims costs ${f(ratio, 2)} × (b)'s`
  log(verdict(ratio <= CLAIMS.pageRatio, `${pages} (≤ ${CLAIMS.pageRatio} ×)`))
  const total = [...seeded.claims.values()].reduce((a, b) => a + b, 0)
  log(`${f(subscriptions)} subscriptions, ${f(total)} claims, ${connections} connections`)
}

/** --clock: the demo partners, the own-gateway one's clock moving (bench/lib/clock.ts). */
async function clock(r: Run) {
  const partners = (db: Db) => seed(db, kind === 'postgres', [1, 0])
  const setUp = await onDemo(r.env, async (db, _config, demo) => ({ demo, partners: await partners(db) }))
  const server = await startApi(r.database, r.env, CLI, join(tmp, 'api.log'))
  const [other, advancing] = await logIn(server.port, setUp)
  check(advancing?.partner.gateway === 'own' && other, 'the second demo partner should use the own gateway')
  await clockBench({ port: server.port, advancing, other, log })
  await stop(server.child)
}

const MODES: Record<NonNullable<typeof mode>, (r: Run) => Promise<unknown>> = {
  against,
  scale,
  claims,
  clock,
  recurrence: ({ env }) =>
    onDemo(env, (db, { timeZone }) =>
      recurrenceBench({ db, postgres: kind === 'postgres', timeZone, cli: CLI, env, log }),
    ),
  webhooks: ({ env }) =>
    onDemo(env, (db) =>
      webhooksBench({ db, cli: CLI, env, count: events, logFile: join(tmp, 'worker.log'), log }),
    ),
}

async function main() {
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}`
  log(`Amparo bench, ${kind}; ${machine}; load ${load()}`)
  if (!args['no-build']) run('npm', ['run', 'build'], ROOT)
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`)
  tmp = mkdtempSync(join(tmpdir(), 'amparo-bench-'))
  const database = await freshDatabase('amparo')
  await (mode ? MODES[mode] : scenarios)({ database, env: serviceEnv(database) })
  log(`load ${load()}`)
}

main()
  .then(() => cleanup())
  .then(() => process.exit(0))
  .catch(async (error: unknown) => {
    process.stderr.write(`\nbench: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`)
    await cleanup()
    process.exit(1)
  })
