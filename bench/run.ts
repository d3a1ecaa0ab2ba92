// `npm run bench`: the API under load, scenarios a–d or one mode. docs/benchmarks.md.
import { randomBytes } from 'node:crypto'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Request } from 'autocannon'
import { Command, InvalidArgumentError, Option } from 'commander'
import { sql } from 'kysely'
import pg from 'pg'
import { type Config, loadConfig } from '../src/config.js'
import { createDb, type Db } from '../src/db/database.js'
import { migrateTo, migrateToLatest } from '../src/db/migrate.js'
import { type DemoPartner, loadDemo } from '../src/demo/demo.js'
import { claimMakers, seedClaims, uploadBench } from './lib/claims.js'
import { clockBench } from './lib/clock.js'
import { consoleBench } from './lib/console.js'
import * as load from './lib/load.js'
import {
  type Bench,
  call,
  check,
  f,
  log,
  type Measurement,
  type ScenarioId,
  type Session,
  summary,
  verdict,
} from './lib/load.js'
import {
  cpuUs,
  freePort,
  memoryOf,
  run,
  type Server,
  startServer,
  stop,
  stopAll,
  waitIdle,
} from './lib/proc.js'
import { recurrenceBench } from './lib/recurrence.js'
import { seed } from './lib/seed.js'
import { addEndpoint, startReceiver, webhooksBench } from './lib/webhooks.js'

// The issues' limits (docs/benchmarks.md, Targets).
const P99_MS = { read: 25, write: 60 }
const MAX_RSS_MB = 200
const MAX_STARTUP_MS = 1500
const MAX_SCALE_RATIO = 2
const MAX_CONTRACT_SCALE_RATIO = 1.25
const MAX_AGAINST_RATIO = 1.05
const CLAIMS = { p99Ms: 50, uploadMs: 500, memoryTimesFile: 3, pageRatio: 1.2 }

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = join(ROOT, 'dist/amparo.mjs')

const atLeast = (min: number) => (text: string) => {
  if (!(Number(text) >= min)) throw new InvalidArgumentError(`a number ≥ ${min} expected`)
  return Number(text)
}
const scenarioIds = (text: string) => {
  const ids = text.split(',').map((id) => id.trim())
  if (!ids.every((id) => id in load.TITLES)) throw new InvalidArgumentError('a,b,c,d or some of them')
  return ids as ScenarioId[]
}
const args = new Command('npm run bench --')
  .description('The API under load, scenarios a–d, or one mode. docs/benchmarks.md')
  .addOption(
    new Option('--db <kind>', 'postgres: a fresh database (default sqlite)').choices(['sqlite', 'postgres']),
  )
  .option('--pg-url <url>', 'the PostgreSQL server', 'postgres://postgres@127.0.0.1:5432/postgres')
  .option('--subscriptions <n>', 'seeded (default 100000, 1000000 with --scale)', atLeast(1))
  .option('--duration <s>', 'measured seconds a scenario', atLeast(0.1), 10)
  .option('--warmup <s>', 'warm-up seconds before each scenario', atLeast(0), 2)
  .option('--connections <n>', 'concurrent connections', atLeast(1), 50)
  .option('--only <ids>', 'scenarios to run, of a,b,c,d', scenarioIds, ['a', 'b', 'c', 'd'])
  .option('--against <rev>', 'mode: REV (built in a git worktree) against this checkout, in pairs')
  .option('--pairs <n>', 'see --against', atLeast(1), 6)
  .option('--scale', 'mode: (b) at 1,000 and at --subscriptions; then (d) there against at 2,000')
  .option('--recurrence', 'mode: 2,000 due installments charged by 1, then 2 workers')
  .option('--webhooks', 'mode: --events delivered by a worker; then a lag beside an endpoint that hangs')
  .option('--events <n>', 'see --webhooks', atLeast(1), 10_000)
  .option('--claims', 'mode: --claims-count claims; 10 MiB uploads, openings, pages of claims')
  .option('--claims-count <n>', 'see --claims and --console', atLeast(1), 10_000)
  .option('--clock', "mode: another partner's p99 while a sandbox clock moves 400 days")
  .option('--console', 'mode: --claims-count claims; each console screen’s API calls against 300 ms')
  .option('--calls <n>', 'see --console: measured calls of each', atLeast(1), 100)
  .option('--endpoint', 'each seeded partner has a webhook endpoint (a local receiver answering 200)')
  .option('--no-worker', 'serve without its in-process jobs and delivery: the write path alone')
  .option('--no-build', 'use dist/ as it is (default: npm run build first)')
  .option('--time-limit <min>', 'hard stop (default 15, 45 with --against or --scale)', atLeast(0.1))
  .parse()
  .opts()
const mode = (['against', 'scale', 'recurrence', 'webhooks', 'claims', 'clock', 'console'] as const).find(
  (m) => args[m],
)
type Numbers = Record<'duration' | 'warmup' | 'connections' | 'pairs', number>
const { duration, warmup, connections, pairs } = args as Numbers
const [kind, only]: ['sqlite' | 'postgres', ScenarioId[]] = [args.db ?? 'sqlite', args.only]
const subscriptions: number = args.subscriptions ?? (mode === 'scale' ? 1_000_000 : 100_000)
const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')

// What the run creates, undone whatever happens (the last step first).
const tmp = mkdtempSync(join(tmpdir(), 'amparo-bench-'))
const undo: (() => unknown)[] = [() => rmSync(tmp, { recursive: true, force: true })]
let cleaning: Promise<void> | undefined
const cleanup = () =>
  (cleaning ??= (async () => {
    await stopAll()
    for (const step of undo.reverse()) await Promise.resolve(step()).catch((e) => log(`cleanup: ${e}`))
  })())
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanup().finally(() => process.exit(130)))
const limitMin: number = args.timeLimit ?? (mode === 'against' || mode === 'scale' ? 45 : 15)
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
  const migrations = (r: string) => {
    const files = run('git', ['ls-tree', '--name-only', r, 'src/db/migrations/'], ROOT)
    return [...files.matchAll(/\/(\d{4}-[^/]+)\.ts$/gm)].map((m) => m[1] as string)
  }
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

type Database = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string }
/** A database and its service's environment: what each mode starts from. */
type Run = { database: Database; env: NodeJS.ProcessEnv }

/** A statement on the PostgreSQL server (--pg-url), outside the run's databases; its rows. */
async function admin(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: args.pgUrl })
  await client.connect()
  return (await client.query(text, values).finally(() => client.end())).rows
}
const databaseName = (database: Database) =>
  database.kind === 'postgres' ? new URL(database.url).pathname.slice(1) : undefined

/** A new database for the run (PostgreSQL: `amparo_bench_<random>`, empty or copied from `template`). */
async function freshDatabase(name: string, template?: Database): Promise<Database> {
  if (kind === 'sqlite') {
    const file = join(tmp, `${name}.sqlite`)
    if (template?.kind === 'sqlite') copyFileSync(template.file, file)
    return { kind, file }
  }
  const created = `amparo_bench_${randomBytes(4).toString('hex')}`
  await admin(`create database ${created}${template ? ` template ${databaseName(template)}` : ''}`)
  undo.push(() => admin(`drop database if exists ${created} with (force)`))
  const url = new URL(args.pgUrl)
  url.pathname = `/${created}`
  return { kind, url: url.toString() }
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

/** Before any load: each list's total, a quotation, a contract and the payment of its installment 1. */
async function sanityChecks(port: number, sessions: Session[]) {
  for (const { partner, token } of sessions) {
    const page = await call(port, '/subscriptions?page=1&per_page=15', token, undefined, 200)
    check(page.json.meta?.total === partner.subscriptions, `partner ${partner.id}'s list: ${page.text}`)
    await call(port, `/quotation?model_id=${partner.models[0]?.id}`, token, undefined, 200)
  }
  const { partner, token } = sessions.find((s) => s.partner.gateway === 'external') as Session
  const body = {
    plan_id: partner.planIds[0],
    customer_id: partner.customerIds[0],
    model_id: partner.models[0]?.id,
  }
  const { id } = (await call(port, '/subscriptions', token, body, 201)).json
  const installments = await call(port, `/subscriptions/${id}/installments`, token, undefined, 200)
  const first = installments.json.find?.((i: { number: number }) => i.number === 1)
  check(first, `installments: ${installments.text}`)
  const paid = await call(port, `/subscriptions/${id}/installments/${first.id}/notify-payment`, token, '')
  check(paid.status >= 200 && paid.status < 300, `payment: ${paid.status} ${paid.text}`)
}

/** `npm start`'s node flags (its heap limits count), and BENCH_NODE_FLAGS (a profile: `--cpu-prof --cpu-prof-dir=DIR`). */
const START_FLAGS = [
  ...(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start.match(/--\S+/g) as string[]),
  ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
]

/** A server under load: on PostgreSQL its database's backends count in its CPU; `drained`: idle since its last load. */
type Api = Server & { database: Database; drained?: boolean }

async function startApi({ database, env }: Run, cli = CLI, logFile?: string): Promise<Api> {
  const worker = args.worker ? [] : ['--no-worker']
  return { ...(await startServer([...START_FLAGS, cli, 'serve', ...worker], env, logFile)), database }
}

async function pidsOf(api: Api) {
  const name = databaseName(api.database)
  const backends = name ? await admin('select pid from pg_stat_activity where datname = $1', [name]) : []
  return [api.pid, ...backends.map((row) => Number(row.pid))]
}

const warm = (api: Api, requests: Request[], seconds = warmup || 0.5) => {
  api.drained = false
  return load.runLoad(api.port, connections, requests, seconds)
}

/** Load on `api` for `seconds` (after `warmS` of warm-up); CPU counted until it drained its queue. */
async function measure(api: Api, requests: Request[], seconds = duration, warmS = warmup) {
  if (warmS > 0) await warm(api, requests, warmS)
  const pids = await pidsOf(api)
  if (!api.drained) await waitIdle(pids)
  const before = cpuUs(pids)
  const m = await warm(api, requests, seconds)
  m.cpuUs = cpuUs(pids) - before
  await waitIdle(pids)
  api.drained = true
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

/** The demo and `counts[i]` subscriptions for the i-th partner (and the claims with --claims, --console). */
const setUpDatabase = (env: NodeJS.ProcessEnv, counts: number[]) =>
  onDemo(env, async (db, config, demo) => {
    const partners = await seed(db, kind === 'postgres', counts)
    const withClaims = args.claims || args.console
    const claims = withClaims ? await seedClaims(db, partners, args.claimsCount, config.timeZone) : undefined
    if (claims && kind === 'postgres') await sql`analyze`.execute(db) // as autovacuum would, a little later
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
    const login = await call(port, '/auth/login', undefined, { client_id, client_secret }, 200)
    sessions.push({ partner, token: String(login.json.token) })
  }
  return sessions
}

/**
 * The seeded database (60 / 40 % of --subscriptions unless `counts`), its API started `starts`
 * times (the last kept; start-up is spawn to the first 200 of /health), the partners logged in, the
 * sanity checks passed unless `sane` is false. With `lastMigration`: a copy of the seeded database
 * (SQLite: the file; PostgreSQL: `create database … template`) migrated down to it, for an older revision.
 */
async function serve(
  r: Run,
  o: { counts?: number[]; starts?: number; sane?: boolean; lastMigration?: string } = {},
) {
  const large = Math.round(subscriptions * 0.6)
  const counts = o.counts ?? [large, subscriptions - large]
  log(`Migrating, loading the demo, seeding ${counts.map((n) => f(n)).join(' + ')} subscriptions…`)
  const seeding = performance.now()
  const setUp = await setUpDatabase(r.env, counts)
  log(`  ${f((performance.now() - seeding) / 1000, 1)} s; ${setUp.engine}`)
  const older = o.lastMigration ? await freshDatabase('against', r.database) : undefined
  if (older) {
    const db = createDb(loadConfig({ ...serviceEnv(older), LOG_LEVEL: 'silent' }).database)
    await migrateTo(db, o.lastMigration as string).finally(() => db.destroy())
  }
  const startups: number[] = []
  let api: Api | undefined
  for (let i = 0; i < (o.starts ?? 1); i++) {
    if (api) await stop(api.child)
    api = await startApi(r, CLI, join(tmp, 'api.log'))
    startups.push(api.startupMs)
  }
  const server = api as Api
  const sessions = await logIn(server.port, setUp)
  if (o.sane !== false) await sanityChecks(server.port, sessions)
  return { setUp, server, sessions, startups, older }
}

/** The scenarios a–d, with the limits' verdicts: p99 (SQLite), peak RSS, start-up. */
async function scenarios(r: Run) {
  // Start-up is the median of 3 starts; a run of < 3 s a scenario (a smoke run) checks one, cheaper.
  const { server, sessions, startups } = await serve(r, { starts: duration < 3 ? 1 : 3 })
  const restingRss = memoryOf(server.pid).rssMb
  const make = load.makers(sessions)
  const rows: load.Row[] = []
  for (const id of only) {
    const name = `(${id}) ${load.TITLES[id]}`
    log(`${name}…`)
    const s = summary([await measure(server, load.requestsOf(make[id]))])
    const limit = P99_MS[id === 'd' ? 'write' : 'read']
    const verdicts = [s.problems && `INVALID: ${s.problems}`]
    if (kind === 'sqlite') verdicts.push(verdict(s.p99 <= limit, `p99 ≤ ${limit} ms`))
    rows.push([name, s, verdicts.filter(Boolean).join('; ')])
  }
  const memory = memoryOf(server.pid)
  await stop(server.child)

  log(`\n${load.scenarioTable(rows, 'verdicts')}\n`)
  const startup = [...startups].sort((a, b) => a - b)[startups.length >> 1] as number
  const rss = `${f(memory.hwmMb)} MB (${f(restingRss)} at rest)`
  log(verdict(memory.hwmMb <= MAX_RSS_MB, `peak RSS ${rss} ≤ ${MAX_RSS_MB} MB`))
  const starts = `${f(startup)} ms (median of ${startups.map((s) => f(s)).join(', ')})`
  log(verdict(startup <= MAX_STARTUP_MS, `start-up ${starts} ≤ ${MAX_STARTUP_MS} ms`))
  log(`${f(subscriptions)} subscriptions, ${connections} connections, ${warmup} + ${duration} s a scenario`)
}

/**
 * Each side's CPU a request for `requests`, the measured seconds alternating between the two in
 * ≈ 2 s slices after a warm-up of each (the machine drifts; two processes started together meet it alike).
 */
async function alternate(sides: Api[], requests: Request[][], order = [0, 1]) {
  for (const i of order) await warm(sides[i] as Api, requests[i] as Request[])
  const runs: Measurement[][] = [[], []]
  const slices = Math.max(2, Math.round(duration / 2))
  for (let k = 0; k < slices; k++)
    for (const i of k % 2 ? [...order].reverse() : order)
      runs[i]?.push(await measure(sides[i] as Api, requests[i] as Request[], duration / slices, 0))
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
    const s = summary([await measure(server, load.requestsOf(load.makers([session]).b))])
    us.push(s.us)
    log(`  a page of ${f(session.partner.subscriptions)}: ${f(s.us)} µs, p50 ${f(s.p50, 2)} ms ${s.problems}`)
  }
  const ratio = (us[1] as number) / (us[0] as number)
  const paging = `paging cost at ${f(subscriptions)} rows is ${f(ratio, 2)} × at 1,000`
  log(verdict(ratio <= MAX_SCALE_RATIO, `${paging} (≤ ${MAX_SCALE_RATIO} ×)`))

  log(`(d) ${load.TITLES.d} on a database of 2,000 subscriptions and on this one, alternating…`)
  const database = await freshDatabase('small')
  const small = { database, env: serviceEnv(database) }
  const smallSetUp = await setUpDatabase(small.env, [1000, 1000])
  const smallApi = await startApi(small, CLI, join(tmp, 'small-api.log'))
  const requests = [load.makers(await logIn(smallApi.port, smallSetUp)).d, load.makers(sessions).d]
  const [at2k, atLarge] = (await alternate([smallApi, server], requests.map(load.requestsOf))).map(summary)
  await stop(smallApi.child)
  for (const [label, s] of [['2,000', at2k] as const, [f(subscriptions), atLarge] as const])
    log(`  a contract at ${label} subscriptions: ${f(s?.us)} µs, p50 ${f(s?.p50, 2)} ms ${s?.problems}`)
  const contracts = (atLarge?.us as number) / (at2k?.us as number)
  const text = `a contract at ${f(subscriptions)} subscriptions costs ${f(contracts, 2)} × one at 2,000`
  log(verdict(contracts <= MAX_CONTRACT_SCALE_RATIO, `${text} (≤ ${MAX_CONTRACT_SCALE_RATIO} ×)`))
}

/** --against REV: each scenario's CPU a request, REV's build against this checkout's, in fresh pairs. */
async function against(r: Run) {
  const revision = buildRevision(args.against)
  const { server, sessions, older } = await serve(r, { lastMigration: revision.lastMigration })
  await stop(server.child)
  // One key for both sides: the sessions logged in at this checkout's API are used at both.
  const env = { ...serviceEnv(older as Database), AMPARO_JWT_KEYS: r.env.AMPARO_JWT_KEYS }
  const sides: Run[] = [{ database: older as Database, env }, r]
  const make = load.makers(sessions)
  const verdicts: string[] = []
  for (const id of only) {
    const requests = load.requestsOf(make[id])
    const runs: Measurement[][] = [[], []]
    for (let pair = 0; pair < pairs; pair++) {
      // Two processes of one build differ by up to 25 % for life (JIT, memory layout, the core
      // they run on), so every pair is new, and which side starts and runs first alternates.
      const order = pair % 2 ? [1, 0] : [0, 1]
      const servers: Api[] = []
      for (const side of order) servers[side] = await startApi(sides[side] as Run, [revision.cli, CLI][side])
      const measured = await alternate(servers, [requests, requests], order)
      for (const s of servers) await stop(s.child)
      for (const [i, side] of measured.entries()) runs[i]?.push(...side)
      const [before, after] = measured.map(summary) as [load.Summary, load.Summary]
      const problems = [before.problems, after.problems].filter(Boolean).join(', ')
      log(
        `  (${id}) pair ${pair + 1}: before ${f(before.us, 1)} µs, after ${f(after.us, 1)} µs ${problems && `INVALID: ${problems}`}`,
      )
    }
    const [before, after] = runs.map((side) => summary(side).us) as [number, number]
    const change = 100 * (after / before - 1)
    const figures = `before ${f(before, 1)} µs, after ${f(after, 1)} µs a request (${change >= 0 ? '+' : ''}${f(change, 1)} %)`
    verdicts.push(verdict(after <= before * MAX_AGAINST_RATIO, `(${id}) ${load.TITLES[id]}: ${figures}`))
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
  const scenarios = [
    ['(e) POST /claims', make.e],
    ['(f) GET /claims, a page of 15', make.f],
    ['(b) GET /subscriptions, a page of 15', load.makers(sessions).b],
  ] as const
  const rows: load.Row[] = []
  for (const [name, maker] of scenarios) {
    log(`${name}…`)
    const s = summary([await measure(server, load.requestsOf(maker))])
    rows.push([name, s, s.problems])
  }
  log(`\n${load.scenarioTable(rows, 'problems')}\n`)
  const [opening, claimsPage, page] = rows.map(([, s]) => s) as [load.Summary, load.Summary, load.Summary]
  log(verdict(opening.p99 <= CLAIMS.p99Ms, `(e) p99 ${f(opening.p99, 2)} ms (≤ ${CLAIMS.p99Ms} ms)`))
  const ratio = claimsPage.us / page.us
  const pages = `(f) a page of claims costs ${f(ratio, 2)} × (b)'s`
  log(verdict(ratio <= CLAIMS.pageRatio, `${pages} (≤ ${CLAIMS.pageRatio} ×)`))
  const total = [...seeded.claims.values()].reduce((a, b) => a + b, 0)
  log(`${f(subscriptions)} subscriptions, ${f(total)} claims, ${connections} connections`)
}

/** --clock: the demo partners, the own-gateway one's clock moving (bench/lib/clock.ts). */
async function clock(r: Run) {
  const { server, sessions } = await serve(r, { counts: [1, 0], sane: false })
  const [other, advancing] = sessions
  check(advancing?.partner.gateway === 'own' && other, 'the second demo partner should use the own gateway')
  await clockBench(server.port, advancing, other)
  await stop(server.child)
}

/** --console: the claims seeded too, the console's listener on a port of its own (bench/lib/console.ts). */
async function consoleScreens(r: Run) {
  const env = { ...r.env, AMPARO_CONSOLE_PORT: String(await freePort()) }
  const { setUp } = await serve({ ...r, env })
  await consoleBench(benchOf(env, 'api.log'), Number(env.AMPARO_CONSOLE_PORT), setUp.partners, args.calls)
  const claims = [...(setUp.claims?.claims.values() ?? [])].reduce((a, b) => a + b, 0)
  log(`${f(subscriptions)} subscriptions, ${f(claims)} claims`)
}

/** What a mode of bench/lib gets: the built CLI, the service's environment, a log file. */
const benchOf = (env: NodeJS.ProcessEnv, logName: string): Bench => ({
  cli: CLI,
  env,
  logFile: join(tmp, logName),
})

const MODES: Record<NonNullable<typeof mode>, (r: Run) => Promise<unknown>> = {
  against,
  scale,
  claims,
  clock,
  console: consoleScreens,
  recurrence: ({ env }) =>
    onDemo(env, (db, { timeZone }) =>
      recurrenceBench(benchOf(env, 'worker.log'), db, kind === 'postgres', timeZone),
    ),
  webhooks: ({ env }) => onDemo(env, (db) => webhooksBench(benchOf(env, 'worker.log'), db, args.events)),
}

async function main() {
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}`
  log(`Amparo bench, ${kind}; ${machine}; load ${loadAverage()}`)
  if (args.build) run('npm', ['run', 'build'], ROOT)
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`)
  const database = await freshDatabase('amparo')
  await (mode ? MODES[mode] : scenarios)({ database, env: serviceEnv(database) })
  log(`\n${load.verdictsMet()}; load ${loadAverage()}`)
}

main()
  .then(() => cleanup())
  .then(() => process.exit(0))
  .catch(async (error: unknown) => {
    process.stderr.write(`\nbench: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`)
    await cleanup()
    process.exit(1)
  })
