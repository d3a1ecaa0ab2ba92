// `npm run bench`: the API under load, scenarios a–d or one mode. docs/benchmarks.md.
import { randomBytes } from 'node:crypto'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
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
import { type Call, call, check, f, log, type Session, summary, TITLES, verdict } from './lib/load.js'
import { messagesBench } from './lib/messages.js'
import { portalBench } from './lib/portal.js'
import { cpuUs, freePort, memoryOf, run, startServer, stop, stopAll, waitIdle } from './lib/proc.js'
import { recurrenceBench } from './lib/recurrence.js'
import { seed } from './lib/seed.js'
import { BENCH_WEBHOOK_SECRET, seedPixCodes, stripeEventsBench } from './lib/stripe-events.js'
import { addEndpoint, startReceiver, webhooksBench } from './lib/webhooks.js'

// The issues' limits (docs/benchmarks.md, Scenarios and targets).
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
  if (!ids.every((id) => id in TITLES)) throw new InvalidArgumentError('a,b,c,d or some of them')
  return ids as load.ScenarioId[]
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
  .option('--events <n>', 'see --webhooks (default 10,000) and --messages', atLeast(1))
  .option('--claims', 'mode: --claims-count claims; 10 MiB uploads, openings, pages of claims')
  .option('--claims-count <n>', 'see --claims and --console', atLeast(1), 10_000)
  .option('--clock', "mode: another partner's p99 while a sandbox clock moves 400 days")
  .option('--stripe', "mode: Stripe's signed events paying PIX codes: the most a second, p99 at half")
  .option('--console', 'mode: --claims-count claims; each console screen’s API calls against 300 ms')
  .option('--calls <n>', 'see --console and --portal: measured calls of each', atLeast(1), 100)
  .option('--portal', 'mode: --claims-count claims; the portal pages of one insured against 300 ms')
  .option('--messages', 'mode: --events messages (default 2,000) sent by a worker to a local SMTP server')
  .option('--endpoint', 'each seeded partner has a webhook endpoint (a local receiver answering 200)')
  .option('--no-worker', 'serve without its in-process jobs and delivery: the write path alone')
  .option('--no-build', 'use dist/ as it is (default: npm run build first)')
  .option('--time-limit <min>', 'hard stop (default 15, 45 with --against or --scale)', atLeast(0.1))
  .parse()
  .opts()
const MODE_NAMES = [
  'against',
  'scale',
  'recurrence',
  'webhooks',
  'claims',
  'clock',
  'console',
  'portal',
  'messages',
  'stripe',
] as const
const mode = MODE_NAMES.find((m) => args[m])
type Numbers = Record<'duration' | 'warmup' | 'connections' | 'pairs', number>
const { duration, warmup, connections, pairs } = args as Numbers
const [kind, only]: ['sqlite' | 'postgres', load.ScenarioId[]] = [args.db ?? 'sqlite', args.only]
const subscriptions: number = args.subscriptions ?? (mode === 'scale' ? 1_000_000 : 100_000)
/** What the two demo partners are seeded with unless a mode says otherwise: 60 / 40 %. */
const SHARES = [Math.round(subscriptions * 0.6), subscriptions - Math.round(subscriptions * 0.6)]
const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')

// What the run creates, undone whatever happens (the last step first).
const tmp = mkdtempSync(join(tmpdir(), 'amparo-bench-'))
const LOG = join(tmp, 'api.log') // the run's processes' output
const undo: (() => unknown)[] = [() => rmSync(tmp, { recursive: true, force: true })]
let cleaning: Promise<void> | undefined
const cleanup = () =>
  (cleaning ??= (async () => {
    await stopAll()
    for (const step of undo.reverse()) await Promise.resolve(step()).catch((e) => log(`cleanup: ${e}`))
  })())
const quit = (code: number) => void cleanup().finally(() => process.exit(code))
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => quit(130))
const limitMin: number = args.timeLimit ?? (mode === 'against' || mode === 'scale' ? 45 : 15)
setTimeout(() => {
  log(`\nbench: time limit of ${limitMin} min reached; stopping`)
  quit(3)
}, limitMin * 60_000).unref()

/**
 * REV built in a detached git worktree, with this checkout's node_modules. Its migrations must be
 * the first of this checkout's: its side serves a copy of the seeded database migrated down to its last.
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

type Database =
  | { kind: 'sqlite'; file: string; name?: undefined }
  | { kind: 'postgres'; url: string; name: string }

/** A statement on the PostgreSQL server (--pg-url), outside the run's databases; its rows. */
async function admin(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: args.pgUrl })
  await client.connect()
  return (await client.query(text, values).finally(() => client.end())).rows
}

/** A new database for the run (PostgreSQL: `amparo_bench_<random>`, empty or copied from `template`). */
async function freshDatabase(name: string, template?: Database): Promise<Database> {
  if (kind === 'sqlite') {
    const file = join(tmp, `${name}.sqlite`)
    if (template?.kind === 'sqlite') copyFileSync(template.file, file)
    return { kind, file }
  }
  const created = `amparo_bench_${randomBytes(4).toString('hex')}`
  await admin(`create database ${created}${template ? ` template ${template.name}` : ''}`)
  undo.push(() => admin(`drop database if exists ${created} with (force)`))
  const url = new URL(args.pgUrl)
  url.pathname = `/${created}`
  return { kind, url: url.toString(), name: created }
}

// One key for every API: --against's sides take the same tokens.
const JWT_KEYS = `bench=${randomBytes(24).toString('hex')}`
let consolePort: number | undefined // --console's listener
let portalPort: number | undefined // --portal's

/** The service's environment, rebuilt: nothing of the caller's may redirect it. */
function serviceEnv(database: Database): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(
    ([key]) => !/^(AMPARO_|DATABASE_URL$|REDIS_URL$|DB_POOL_MAX$|HOST$|PORT$|LOG_LEVEL$)/.test(key),
  )
  return {
    ...Object.fromEntries(kept),
    ...(database.kind === 'sqlite' ? { AMPARO_SQLITE_FILE: database.file } : { DATABASE_URL: database.url }),
    ...(consolePort && { AMPARO_CONSOLE_PORT: String(consolePort) }),
    ...(portalPort && { AMPARO_PORTAL_PORT: String(portalPort) }),
    AMPARO_ENV: 'test',
    AMPARO_JWT_KEYS: JWT_KEYS,
    // As production must set it: links follow it, not the Host header, and an event's resource is
    // the response's own (without it, a contract renders its subscription a second time for the event).
    AMPARO_PUBLIC_URL: 'http://127.0.0.1',
    AMPARO_RATE_LIMIT: '1000000', // the per-partner limiter runs (its cost is measured) but never answers 429
    // One address stands for every partner here: an open-loop run holds more than the per-address
    // cap's connections while the server falls behind, and its client keeps them open after.
    AMPARO_MAX_CONNECTIONS_PER_ADDRESS: '0',
    STRIPE_WEBHOOK_SECRET: BENCH_WEBHOOK_SECRET,
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
  }
}

/** What a mode of bench/lib gets. */
const bench = (database: Database): load.Bench => ({ cli: CLI, env: serviceEnv(database), logFile: LOG })

/** `work` on `database`, migrated and holding the demo. */
async function onDemo<T>(
  database: Database,
  work: (db: Db, config: Config, demo: DemoPartner[]) => Promise<T>,
) {
  const config = loadConfig({ ...serviceEnv(database), LOG_LEVEL: 'silent' })
  const db = createDb(config.database)
  try {
    await migrateToLatest(db)
    return await work(db, config, (await loadDemo(db, config, new Date().toISOString())).partners)
  } finally {
    await db.destroy()
  }
}

/** The demo and `counts[i]` subscriptions for the i-th partner (and the claims with --claims, --console). */
async function setUp(database: Database, counts = SHARES) {
  log(`Migrating, loading the demo, seeding ${counts.map((n) => f(n)).join(' + ')} subscriptions…`)
  const started = performance.now()
  return onDemo(database, async (db, config, demo) => {
    const partners = await seed(db, counts)
    const withClaims = args.claims || args.console || args.portal
    const claims = withClaims ? await seedClaims(db, partners, args.claimsCount, config.timeZone) : undefined
    const pixCodes = args.stripe ? await seedPixCodes(db, partners) : undefined
    if (claims && kind === 'postgres') await sql`analyze`.execute(db) // as autovacuum would, a little later
    if (args.endpoint) {
      const receiver = await startReceiver()
      undo.push(() => receiver.close())
      for (const { id } of partners) await addEndpoint(db, id, `${receiver.url}/ok`)
    }
    const version = kind === 'sqlite' ? sql`'SQLite ' || sqlite_version()` : sql`version()`
    const engine = await sql<{ v: string }>`select ${version} as v`.execute(db)
    log(`  ${f((performance.now() - started) / 1000, 1)} s; ${String(engine.rows[0]?.v).split(' on ')[0]}`)
    return { demo, partners, claims, pixCodes }
  })
}
type SetUp = Awaited<ReturnType<typeof setUp>>

/**
 * How `amparo serve` runs, from the command's first line (`env -S NAME=VALUE… node --flag…`): its
 * environment and node flags (heap limits, malloc's) count in the peak RSS; and BENCH_NODE_FLAGS
 * (a profile: `--cpu-prof --cpu-prof-dir=DIR`).
 */
function launch() {
  const words = readFileSync(CLI, 'utf8').slice(0, 300).split('\n')[0]?.split(' ') ?? []
  const flags = [...words, ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ')].filter((w) =>
    w.startsWith('--'),
  )
  const env = Object.fromEntries(words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => w.split('=', 2)))
  return { flags, env }
}

/** A server under load: on PostgreSQL its database's backends count in its CPU; `drained`: idle since its last load. */
type Api = Awaited<ReturnType<typeof startServer>> & { database: Database; drained?: boolean }

async function startApi(database: Database, cli = CLI, logFile?: string): Promise<Api> {
  const worker = args.worker ? [] : ['--no-worker']
  const { flags, env } = launch()
  const server = await startServer(
    [...flags, cli, 'serve', ...worker],
    { ...serviceEnv(database), ...env },
    logFile,
  )
  return { ...server, database }
}

/** Before any load: each list's total, a quotation, a contract and the payment of its installment 1. */
async function sanityChecks(port: number, sessions: Session[]) {
  for (const { partner, token } of sessions) {
    const page = await call(port, '/subscriptions?page=1&per_page=15', token, undefined, 200)
    check(page.json.meta?.total === partner.subscriptions, `partner ${partner.id}'s list: ${page.text}`)
    await call(port, `/quotation?model_id=${partner.models[0]?.id}`, token, undefined, 200)
  }
  const { partner, token } = sessions.find((s) => s.partner.gateway === 'external') as Session
  const { planIds, customerIds, models } = partner
  const body = { plan_id: planIds[0], customer_id: customerIds[0], model_id: models[0]?.id }
  const { id } = (await call(port, '/subscriptions', token, body, 201)).json
  const installments = await call(port, `/subscriptions/${id}/installments`, token, undefined, 200)
  const first = installments.json.find?.((i: { number: number }) => i.number === 1)
  check(first, `installments: ${installments.text}`)
  const paid = await call(port, `/subscriptions/${id}/installments/${first.id}/notify-payment`, token, '')
  check(paid.status >= 200 && paid.status < 300, `payment: ${paid.status} ${paid.text}`)
}

/**
 * The API on `database` started `starts` times (the last kept; start-up is spawn to the first 200 of
 * /health), the partners logged in, the sanity checks passed unless `sane` is false.
 */
async function start(database: Database, { demo, partners }: SetUp, { starts = 1, sane = true } = {}) {
  let server = await startApi(database, CLI, LOG)
  const startups = [server.startupMs]
  while (startups.length < starts) {
    await stop(server.child)
    server = await startApi(database, CLI, LOG)
    startups.push(server.startupMs)
  }
  const idleRss = memoryOf(server.pid).rssMb
  const sessions: Session[] = []
  for (const partner of partners) {
    const { client_id, client_secret } = demo.find((d) => d.id === partner.id) ?? {}
    const login = await call(server.port, '/auth/login', undefined, { client_id, client_secret }, 200)
    sessions.push({ partner, token: String(login.json.token) })
  }
  if (sane) await sanityChecks(server.port, sessions)
  return { server, sessions, startups, idleRss }
}

const warm = (api: Api, make: () => Call, seconds = warmup || 0.5) => {
  api.drained = false
  return load.runLoad(api.port, connections, make, seconds)
}

/** Load on `api` for `seconds` (after `warmS` of warm-up); CPU counted until it drained its queue. */
async function measure(api: Api, make: () => Call, seconds = duration, warmS = warmup) {
  if (warmS > 0) await warm(api, make, warmS)
  const { name } = api.database
  const backends = name ? await admin('select pid from pg_stat_activity where datname = $1', [name]) : []
  const pids = [api.pid, ...backends.map((row) => Number(row.pid))]
  if (!api.drained) await waitIdle(pids)
  const before = cpuUs(pids)
  const m = await warm(api, make, seconds)
  m.cpuUs = cpuUs(pids) - before
  await waitIdle(pids)
  api.drained = true
  return m
}

/** A scenario `name` measured on `api`: its summary. */
async function scenario(api: Api, name: string, make: () => Call) {
  log(`${name}…`)
  return { name, ...summary([await measure(api, make)]) }
}

/** The scenarios a–d, with the limits' verdicts: p99 (SQLite), peak RSS, start-up. */
async function scenarios(database: Database) {
  // Start-up is the median of 3 starts; a run of < 3 s a scenario (a smoke run) checks one, cheaper.
  const seeded = await setUp(database)
  const { server, sessions, startups, idleRss } = await start(database, seeded, {
    starts: duration < 3 ? 1 : 3,
  })
  const restingRss = memoryOf(server.pid).rssMb
  const make = load.makers(sessions)
  const rows: load.Row[] = []
  for (const id of only) {
    const s = await scenario(server, TITLES[id], make[id])
    const limit = P99_MS[id === 'd' ? 'write' : 'read']
    const verdicts = [s.problems && `INVALID: ${s.problems}`]
    if (kind === 'sqlite') verdicts.push(verdict(s.p99 <= limit, `p99 ≤ ${limit} ms`))
    rows.push([s.name, s, verdicts.filter(Boolean).join('; ')])
  }
  const memory = memoryOf(server.pid)

  log(`\n${load.scenarioTable(rows, 'verdicts')}\n`)
  const startup = [...startups].sort((a, b) => a - b)[startups.length >> 1] as number
  const rss = `${f(memory.hwmMb)} MB (${f(idleRss)} idle after start, ${f(restingRss)} after the logins)`
  log(verdict(memory.hwmMb <= MAX_RSS_MB, `peak RSS ${rss} ≤ ${MAX_RSS_MB} MB`))
  const starts = `${f(startup)} ms (median of ${startups.map((s) => f(s)).join(', ')})`
  log(verdict(startup <= MAX_STARTUP_MS, `start-up ${starts} ≤ ${MAX_STARTUP_MS} ms`))
  log(`${f(subscriptions)} subscriptions, ${connections} connections, ${warmup} + ${duration} s a scenario`)
}

/**
 * Each side's CPU a request, the measured seconds alternating between the two in ≈ 2 s slices after
 * a warm-up of each (the machine drifts; two processes started together meet it alike).
 */
async function alternate(sides: Api[], makes: (() => Call)[], order = [0, 1]) {
  for (const i of order) await warm(sides[i] as Api, makes[i] as () => Call)
  const runs: load.Measurement[][] = [[], []]
  const slices = Math.max(2, Math.round(duration / 2))
  for (let k = 0; k < slices; k++)
    for (const i of k % 2 ? [...order].reverse() : order)
      runs[i]?.push(await measure(sides[i] as Api, makes[i] as () => Call, duration / slices, 0))
  return runs
}

/**
 * --scale: (b) for the partner of 1,000 and the one of --subscriptions; then (d) on this database
 * against one of 2,000 subscriptions served by a second API process (what a contract writes grows
 * with the whole database, not with one partner's share of it).
 */
async function scale(database: Database) {
  const seeded = await setUp(database, [1000, subscriptions])
  const { server, sessions } = await start(database, seeded, { sane: false })
  const us: number[] = []
  for (const session of sessions) {
    const s = summary([await measure(server, load.makers([session]).b)])
    us.push(s.us)
    log(`  a page of ${f(session.partner.subscriptions)}: ${f(s.us)} µs, p50 ${f(s.p50, 2)} ms ${s.problems}`)
  }
  const ratio = (us[1] as number) / (us[0] as number)
  const paging = `paging cost at ${f(subscriptions)} rows is ${f(ratio, 2)} × at 1,000`
  log(verdict(ratio <= MAX_SCALE_RATIO, `${paging} (≤ ${MAX_SCALE_RATIO} ×)`))

  log(`${TITLES.d} on a database of 2,000 subscriptions and on this one, alternating…`)
  const smallDatabase = await freshDatabase('small')
  const small = await start(smallDatabase, await setUp(smallDatabase, [1000, 1000]), { sane: false })
  const makes = [load.makers(small.sessions).d, load.makers(sessions).d]
  const [at2k, atLarge] = (await alternate([small.server, server], makes)).map(summary)
  for (const [label, s] of [['2,000', at2k] as const, [f(subscriptions), atLarge] as const])
    log(`  a contract at ${label} subscriptions: ${f(s?.us)} µs, p50 ${f(s?.p50, 2)} ms ${s?.problems}`)
  const contracts = (atLarge?.us as number) / (at2k?.us as number)
  const text = `a contract at ${f(subscriptions)} subscriptions costs ${f(contracts, 2)} × one at 2,000`
  log(verdict(contracts <= MAX_CONTRACT_SCALE_RATIO, `${text} (≤ ${MAX_CONTRACT_SCALE_RATIO} ×)`))
}

/** --against REV: each scenario's CPU a request, REV's build against this checkout's, in fresh pairs. */
async function against(database: Database) {
  const revision = buildRevision(args.against)
  const seeded = await setUp(database)
  // REV's side: a copy of the seeded database (SQLite: the file; PostgreSQL: `create database … template`).
  const older = await freshDatabase('against', database)
  const db = createDb(loadConfig({ ...serviceEnv(older), LOG_LEVEL: 'silent' }).database)
  await migrateTo(db, revision.lastMigration).finally(() => db.destroy())
  const { server, sessions } = await start(database, seeded)
  await stop(server.child)
  const sides = [older, database]
  const make = load.makers(sessions)
  const verdicts: string[] = []
  for (const id of only) {
    const runs: load.Measurement[][] = [[], []]
    for (let pair = 0; pair < pairs; pair++) {
      // Two processes of one build differ by up to 25 % for life (JIT, memory layout, the core
      // they run on), so every pair is new, and which side starts and runs first alternates.
      const order = pair % 2 ? [1, 0] : [0, 1]
      const servers: Api[] = []
      for (const side of order)
        servers[side] = await startApi(sides[side] as Database, [revision.cli, CLI][side])
      const measured = await alternate(servers, [make[id], make[id]], order)
      for (const s of servers) await stop(s.child)
      for (const [i, side] of measured.entries()) runs[i]?.push(...side)
      const [before, after] = measured.map(summary) as [load.Summary, load.Summary]
      const problems = [before.problems, after.problems].filter(Boolean).join(', ')
      const figures = `before ${f(before.us, 1)} µs, after ${f(after.us, 1)} µs`
      log(`  (${id}) pair ${pair + 1}: ${figures} ${problems && `INVALID: ${problems}`}`)
    }
    const [before, after] = runs.map((side) => summary(side).us) as [number, number]
    const change = 100 * (after / before - 1)
    const figures = `before ${f(before, 1)} µs, after ${f(after, 1)} µs a request (${change >= 0 ? '+' : ''}${f(change, 1)} %)`
    verdicts.push(verdict(after <= before * MAX_AGAINST_RATIO, `${TITLES[id]}: ${figures}`))
  }
  log(`\n${revision.commit} (before) against this checkout (after), ${kind}, ${pairs} pairs`)
  for (const v of verdicts) log(v)
  log('(within 5 % or better: ok)')
}

/** --claims: (g) uploads first (the memory they add is read from the process at rest), (e), (f) against (b). */
async function claims(database: Database) {
  const seeded = await setUp(database)
  const { server, sessions } = await start(database, seeded)
  const { openable, claims: counts, total } = seeded.claims as NonNullable<SetUp['claims']>
  const make = claimMakers(sessions, openable, counts)
  const upload = await uploadBench(server.port, server.pid, make.e, 5)
  const slowest = Math.max(...upload.runs.map((u) => u.cpuMs))
  const growth = upload.growthMb / upload.fileMb
  const each = upload.runs.map((u) => `${f(u.ms)} ms (CPU ${f(u.cpuMs)} ms, +${f(u.growthMb, 1)} MB)`)
  log(`(g) 10 MiB uploads: ${each.join(', ')}`)
  const cpu = `the slowest took ${f(slowest)} ms of server CPU`
  log(verdict(slowest <= CLAIMS.uploadMs, `${cpu} (≤ ${CLAIMS.uploadMs} ms)`))
  const peak = `peak memory rose ${f(upload.growthMb, 1)} MB, ${f(growth, 2)} × the file`
  log(verdict(growth <= CLAIMS.memoryTimesFile, `${peak} (≤ ${CLAIMS.memoryTimesFile} ×)`))
  const opening = await scenario(server, '(e) POST /claims', make.e)
  // The budget holds at half the most openings a second the saturated run served, arriving at a
  // constant rate: a p99 at saturated connections is queueing (docs/benchmarks.md, Reading the output).
  const rate = opening.rps / 2
  const halfName = `(e) at ${f(rate)}/s, half (e)'s rate, open loop`
  log(`${halfName}…`)
  const cpuBefore = cpuUs([server.pid])
  const paced = await load.runAtRate(server.port, make.e, rate, duration)
  paced.cpuUs = cpuUs([server.pid]) - cpuBefore
  const half = { name: halfName, ...summary([paced]) }
  const claimsPage = await scenario(server, '(f) GET /claims, a page of 15', make.f)
  const page = await scenario(server, TITLES.b, load.makers(sessions).b)
  const rows = [opening, half, claimsPage, page].map((s): load.Row => [s.name, s, s.problems])
  log(`\n${load.scenarioTable(rows, 'problems')}\n`)
  const atHalf = `(e) p99 ${f(half.p99, 2)} ms at ${f(rate)} openings/s, half of ${f(opening.rps)}`
  log(verdict(half.p99 <= CLAIMS.p99Ms && !half.problems, `${atHalf} (≤ ${CLAIMS.p99Ms} ms)`))
  const ratio = claimsPage.us / page.us
  const pages = `(f) a page of claims costs ${f(ratio, 2)} × (b)'s`
  log(verdict(ratio <= CLAIMS.pageRatio, `${pages} (≤ ${CLAIMS.pageRatio} ×)`))
  log(`${f(subscriptions)} subscriptions, ${f(total)} claims, ${connections} connections`)
}

/** --clock: the demo partners, the own-gateway one's clock moving (bench/lib/clock.ts). */
async function clock(database: Database) {
  const { server, sessions } = await start(database, await setUp(database, [1, 0]), { sane: false })
  const [other, advancing] = sessions
  check(advancing?.partner.gateway === 'own' && other, 'the second demo partner should use the own gateway')
  await clockBench(server.port, advancing, other)
}

/** --console: the claims seeded too, the console's listener on a port of its own (bench/lib/console.ts). */
async function consoleScreens(database: Database) {
  consolePort = await freePort()
  const seeded = await setUp(database)
  await start(database, seeded)
  await consoleBench(bench(database), consolePort, seeded.partners, args.calls)
  log(`${f(subscriptions)} subscriptions, ${f(seeded.claims?.total)} claims`)
}

/** --stripe: every subscription of the own-gateway partner with a pending PIX code (bench/lib/stripe-events.ts). */
async function stripeEvents(database: Database) {
  const seeded = await setUp(database)
  const { server, sessions } = await start(database, seeded)
  const codes = seeded.pixCodes ?? []
  log(`${f(codes.length)} pending PIX codes`)
  const db = createDb(loadConfig({ ...serviceEnv(database), LOG_LEVEL: 'silent' }).database)
  try {
    await stripeEventsBench(
      {
        port: server.port,
        db,
        measure: (make) => measure(server, make),
        paced: async (make, rate) => {
          const before = cpuUs([server.pid])
          const paced = await load.runAtRate(server.port, make, rate, duration)
          paced.cpuUs = cpuUs([server.pid]) - before
          return paced
        },
      },
      codes,
      sessions[0] as Session,
    )
  } finally {
    await db.destroy()
  }
  log(`${f(subscriptions)} subscriptions, ${connections} connections, ${warmup} + ${duration} s a run`)
}

/** --portal: the claims seeded too, the portal's listener on a port of its own (bench/lib/portal.ts). */
async function portalPages(database: Database) {
  portalPort = await freePort()
  const seeded = await setUp(database)
  const { server, sessions } = await start(database, seeded)
  await portalBench(LOG, server.port, portalPort, sessions[0] as Session, args.calls)
  log(`${f(subscriptions)} subscriptions, ${f(seeded.claims?.total)} claims`)
}

const MODES: Record<NonNullable<typeof mode>, (database: Database) => Promise<unknown>> = {
  stripe: stripeEvents,
  against,
  scale,
  claims,
  clock,
  console: consoleScreens,
  portal: portalPages,
  messages: (database) => onDemo(database, (db) => messagesBench(bench(database), db, args.events ?? 2000)),
  recurrence: (database) =>
    onDemo(database, (db, config) => recurrenceBench(bench(database), db, config.timeZone)),
  webhooks: (database) => onDemo(database, (db) => webhooksBench(bench(database), db, args.events ?? 10_000)),
}

async function main() {
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}`
  log(`Amparo bench, ${kind}; ${machine}; load ${loadAverage()}`)
  if (args.build) run('npm', ['run', 'build'], ROOT)
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`)
  await (mode ? MODES[mode] : scenarios)(await freshDatabase('amparo'))
  log(`\n${load.verdictsMet()}; load ${loadAverage()}`)
}

main().then(
  () => quit(0),
  (error: unknown) => {
    process.stderr.write(`\nbench: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`)
    quit(1)
  },
)
