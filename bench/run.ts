// `npm run bench` — load test of the API against a bare Fastify baseline. See docs/benchmarks.md.
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import {
  apiScenarios,
  baselineScenario,
  combine,
  type Measurement,
  pageScenario,
  runLoad,
  type Scenario,
  type Session,
} from './lib/load.js'
import {
  cpuMeter,
  freePort,
  memoryOf,
  rssSampler,
  type Server,
  startServer,
  stop,
  stopAll,
  waitForFile,
  waitIdle,
} from './lib/proc.js'
import { profileMarkdown, summarize } from './lib/profile.js'
import {
  type Check,
  consoleTable,
  loadAverage,
  machine,
  median,
  problems,
  resultsMarkdown,
  type ScenarioResult,
  writeSection,
} from './lib/report.js'
import { type BuiltRevision, buildRevision } from './lib/revision.js'
import { createPostgresDatabase, type Dataset, type DbKind, type PartnerData, seed } from './lib/seed.js'
import { MAX_RSS_MB, MAX_STARTUP_MS, P99, TARGETS } from './lib/targets.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = join(ROOT, 'dist/amparo.mjs')
/**
 * The same compiled code, one file per module: with `--profile` the API runs from here, so that
 * the profile's samples can be told apart by package (in the bundle they all share one file).
 */
const UNBUNDLED_CLI = join(ROOT, 'dist/cli/main.js')
const DOC = join(ROOT, 'docs/benchmarks.md')

const HELP = `npm run bench -- [options]

  --db sqlite|postgres     database (default sqlite; postgres creates and drops a fresh database)
  --pg-url URL             PostgreSQL server to create it on (default postgres://postgres@127.0.0.1:5432/postgres)
  --duration S             measured seconds per scenario (default 10), alternating with the
                           baseline's in slices of about 2 s
  --warmup S               warm-up seconds per scenario, not measured (default 2)
  --connections N          concurrent connections (default 50)
  --only a,b,c,d,e         API scenarios to run (default all; the baseline always runs)
  --subscriptions N        subscriptions seeded across the 3 partners (default 100000)
  --scale                  instead: the page scenario (b) for a partner with 1,000 and one with
                           --scale-rows (default 1000000) subscriptions, same database
  --against REV            instead: REV's API (a git revision, built in a temporary worktree) and
                           this checkout's side by side, server CPU a request per scenario, over
                           --pairs (default 6) fresh pairs of processes; docs/benchmarks.md untouched
  --profile                CPU-profile the API during each measured scenario (V8 profiler)
  --no-build               use dist/ as it is (default: npm run build first)
  --no-write               do not update docs/benchmarks.md
  --api-node-args=FLAGS    extra node flags for the API process, with "=" (--api-node-args="--max-semi-space-size=4")
  --keep                   keep the temporary folder (database, request log, profiles)
  --time-limit MIN         stop everything after this many minutes (default 15, 45 with --scale or --against)
`

function positive(name: string, value: string | undefined): number {
  const n = Number(value)
  if (!Number.isFinite(n) || n <= 0) usage(`--${name} must be a positive number`)
  return n
}

function usage(message: string): never {
  process.stderr.write(`bench: ${message}\n\n${HELP}`)
  process.exit(2)
}

function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        db: { type: 'string', default: 'sqlite' },
        'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
        duration: { type: 'string', default: '10' },
        warmup: { type: 'string', default: '2' },
        connections: { type: 'string', default: '50' },
        only: { type: 'string', default: 'a,b,c,d,e' },
        subscriptions: { type: 'string', default: '100000' },
        scale: { type: 'boolean', default: false },
        'scale-rows': { type: 'string', default: '1000000' },
        profile: { type: 'boolean', default: false },
        against: { type: 'string' },
        pairs: { type: 'string', default: '6' },
        'no-build': { type: 'boolean', default: false },
        'no-write': { type: 'boolean', default: false },
        keep: { type: 'boolean', default: false },
        'api-node-args': { type: 'string', default: '' },
        'time-limit': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }).values
  } catch (error) {
    return usage(error instanceof Error ? error.message : String(error))
  }
}
const args = parseCommandLine()

if (args.help) {
  process.stdout.write(HELP)
  process.exit(0)
}
const kind = args.db as DbKind
if (kind !== 'sqlite' && kind !== 'postgres') usage('--db must be sqlite or postgres')
const duration = positive('duration', args.duration)
const warmup = Number(args.warmup)
if (!Number.isFinite(warmup) || warmup < 0) usage('--warmup must be 0 or more')
const connections = Math.round(positive('connections', args.connections))
const subscriptions = Math.round(positive('subscriptions', args.subscriptions))
const scaleRows = Math.round(positive('scale-rows', args['scale-rows']))
const only = new Set(args.only.split(',').map((s) => s.trim()))
for (const id of only) if (!['a', 'b', 'c', 'd', 'e'].includes(id)) usage(`unknown scenario '${id}'`)
const pairs = Math.round(positive('pairs', args.pairs))
if (args.against !== undefined && (args.scale || args.profile))
  usage('--against goes with neither --scale nor --profile')
const timeLimitMin = positive('time-limit', args['time-limit'] ?? (args.scale || args.against ? '45' : '15'))

const log = (line = '') => process.stdout.write(`${line}\n`)
const cores = cpus().length

// Everything the run creates, undone by cleanup() whatever happens.
let tmp = ''
let dropDatabase: (() => Promise<void>) | null = null
let cleaning: Promise<void> | null = null
let revision: BuiltRevision | null = null
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopAll()
    revision?.remove()
    if (dropDatabase && !args.keep)
      await dropDatabase().catch((e) => log(`could not drop the database: ${e}`))
    if (tmp && !args.keep) rmSync(tmp, { recursive: true, force: true })
    else if (tmp) log(`kept ${tmp}`)
  })()
  return cleaning
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`\n${signal}: stopping`)
    void cleanup().finally(() => process.exit(130))
  })
}
setTimeout(() => {
  log(`\nbench: time limit of ${timeLimitMin} min reached; stopping everything`)
  void cleanup().finally(() => process.exit(3))
}, timeLimitMin * 60_000).unref()

/** The environment of the service, without anything of the caller's that would redirect it. */
function serviceEnv(database: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(AMPARO_|DATABASE_URL$|REDIS_URL$|DB_POOL_MAX$|HOST$|PORT$|LOG_LEVEL$)/.test(key)) continue
    env[key] = value
  }
  return {
    ...env,
    ...database,
    AMPARO_ENV: 'test',
    AMPARO_JWT_KEYS: `bench=${randomBytes(24).toString('hex')}`,
    // The per-partner limiter stays on (its cost is measured) but must never answer 429 here.
    AMPARO_RATE_LIMIT: '1000000',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
  }
}

function cli(env: NodeJS.ProcessEnv, cliArgs: string[]): Record<string, unknown> {
  const result = spawnSync(process.execPath, [CLI, ...cliArgs, '--json'], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
  })
  if (result.status !== 0) {
    throw new Error(`amparo ${cliArgs.join(' ')} failed (${result.status}): ${result.stderr || result.error}`)
  }
  return JSON.parse(result.stdout.trim().split('\n').pop() as string) as Record<string, unknown>
}

interface Credentials {
  id: number
  gateway: 'external' | 'own'
  client_id: string
  client_secret: string
}

/** Migrates, loads the demo (2 partners, catalog, plans) and adds a third external-gateway partner. */
function setUpPartners(env: NodeJS.ProcessEnv): Credentials[] {
  cli(env, ['migrate'])
  const demo = cli(env, ['demo']) as { partners: Credentials[] }
  const third = cli(env, [
    'partner',
    'create',
    '--name',
    'Loja Bench (gateway externo)',
    '--gateway',
    'external',
  ])
  const id = String(third.id)
  const credentials = cli(env, ['credentials', 'issue', id]) as { client_id: string; client_secret: string }
  const plan = ['plan', 'create', '--partner', id, '--kind', 'subscription', '--coverage', 'Roubo e furto']
  cli(env, [
    ...plan,
    '--name',
    'Bench 12x',
    '--installments',
    '12',
    '--monthly-rate',
    '0.011',
    '--franchise-rate',
    '0.15',
  ])
  cli(env, [
    ...plan,
    '--name',
    'Bench 24x',
    '--installments',
    '24',
    '--monthly-rate',
    '0.0095',
    '--franchise-rate',
    '0.15',
  ])
  return [...demo.partners, { id: Number(third.id), gateway: 'external', ...credentials }]
}

async function request(port: number, path: string, init: RequestInit = {}) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    ...init,
    headers: {
      accept: 'application/json',
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
      ...init.headers,
    },
    signal: AbortSignal.timeout(60_000),
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON
  }
  return { status: response.status, text, body: body as Record<string, unknown> & unknown[] }
}

async function login(port: number, c: Credentials): Promise<string> {
  const r = await request(port, '/auth/login', {
    method: 'POST',
    body: JSON.stringify({ client_id: c.client_id, client_secret: c.client_secret }),
  })
  if (r.status !== 200) throw new Error(`login of partner ${c.id} failed: ${r.status} ${r.text}`)
  return String(r.body.token)
}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`sanity check failed: ${message}`)
}

/** One request of each scenario, checked, before any load; returns why (e) cannot run, if so. */
async function sanityChecks(port: number, sessions: Session[]): Promise<string | null> {
  const bearer = (s: Session) => ({ authorization: `Bearer ${s.token}` })
  for (const s of sessions) {
    const page = await request(port, '/subscriptions?page=1&per_page=15', { headers: bearer(s) })
    expect(page.status === 200, `list of partner ${s.partner.id}: ${page.status} ${page.text.slice(0, 200)}`)
    const meta = page.body.meta as { total: number }
    expect(
      meta.total === s.partner.subscriptions,
      `partner ${s.partner.id} lists ${meta.total} subscriptions, seeded ${s.partner.subscriptions}`,
    )
    const model = s.partner.models[0]
    const quote = await request(port, `/quotation?model_id=${model?.id}`, { headers: bearer(s) })
    expect(quote.status === 200, `quotation: ${quote.status} ${quote.text.slice(0, 200)}`)
  }
  const external = sessions.find((s) => s.partner.gateway === 'external') as Session
  const contract = await request(port, '/subscriptions', {
    method: 'POST',
    headers: bearer(external),
    body: JSON.stringify({
      plan_id: external.partner.plans[0]?.id,
      customer_id: external.partner.customerIds[0],
      model_id: external.partner.models[0]?.id,
    }),
  })
  expect(contract.status === 201, `contract: ${contract.status} ${contract.text.slice(0, 300)}`)
  const id = Number(contract.body.id)
  const installments = await request(port, `/subscriptions/${id}/installments`, { headers: bearer(external) })
  expect(installments.status === 200, `installments: ${installments.status}`)
  const first = (installments.body as unknown as { id: number; number: number }[]).find((i) => i.number === 1)
  expect(first, 'installment 1 missing')
  const notify = await request(port, `/subscriptions/${id}/installments/${first.id}/notify-payment`, {
    method: 'POST',
    headers: bearer(external),
  })
  if (notify.status >= 200 && notify.status < 300) return null
  const openapi = await request(port, '/openapi.json')
  const documented = Object.keys((openapi.body as { paths?: object }).paths ?? {}).some((p) =>
    p.endsWith('/notify-payment'),
  )
  return `POST /subscriptions/{id}/installments/{installmentId}/notify-payment answered ${notify.status} ${notify.text.slice(0, 160)}${documented ? '' : ' and is not in /openapi.json: the route is not implemented yet'}`
}

/** The resource of one seeded subscription: the baseline serves a body of exactly its size. */
async function sampleResource(port: number, dataset: Dataset, sessions: Session[]): Promise<string> {
  const id = dataset.firstId + Math.floor((dataset.lastId - dataset.firstId) / 2)
  const session = sessions[dataset.owner[id - dataset.firstId] as number] as Session
  const r = await request(port, `/subscriptions/${id}`, {
    headers: { authorization: `Bearer ${session.token}` },
  })
  expect(
    r.status === 200 && r.body.id === id,
    `GET /subscriptions/${id}: ${r.status} ${r.text.slice(0, 200)}`,
  )
  return r.text
}

interface Api {
  server: Server
  startups: number[]
  /** RSS right after start-up, before any request. */
  idleRssMb: number
  logFile: string
  profileDir: string | null
}

/**
 * The node flags of `npm start` (package.json), so the API runs as an operator starts it: the
 * heap limits there are part of what is measured (peak RSS).
 */
const START_NODE_FLAGS: string[] = (() => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
  const words = pkg.scripts.start.split(/\s+/)
  const script = words.indexOf('dist/amparo.mjs')
  if (words[0] !== 'node' || script < 0) {
    throw new Error(`npm start must run node dist/amparo.mjs, not: ${pkg.scripts.start}`)
  }
  return words.slice(1, script)
})()

/** Starts the API three times on the migrated, seeded database; keeps the last one running. */
async function startApi(env: NodeJS.ProcessEnv, port: number): Promise<Api> {
  const logFile = join(tmp, 'api.log')
  const profileDir = args.profile ? join(tmp, 'profiles') : null
  if (profileDir) mkdirSync(profileDir)
  const nodeArgs = [
    ...START_NODE_FLAGS,
    ...args['api-node-args'].split(' ').filter(Boolean),
    ...(profileDir ? ['--import', join(ROOT, 'bench/profiler-preload.mjs')] : []),
  ]
  const startups: number[] = []
  let server: Server | null = null
  for (let i = 0; i < 3; i++) {
    if (server) await stop(server.child)
    server = await startServer({
      name: 'API',
      args: [...nodeArgs, profileDir ? UNBUNDLED_CLI : CLI, 'serve'],
      env: { ...env, PORT: String(port), ...(profileDir && { BENCH_PROFILE_DIR: profileDir }) },
      port,
      stdoutFile: logFile,
      healthPath: '/health',
    })
    startups.push(server.startupMs)
  }
  const idleRssMb = memoryOf((server as Server).pid)?.rssMb ?? Number.NaN
  return { server: server as Server, startups, idleRssMb, logFile, profileDir }
}

interface RunContext {
  api: Api | null
  baselinePid: number | null
  /** PostgreSQL backends serving the API: their CPU is ours, not noise. */
  databasePids: () => Promise<number[]>
}

let profiles = 0
const profileSections: string[] = []

/**
 * Waits until the server has worked off what a stopped load run left queued (autocannon closes
 * its sockets, but the server still runs every request it had read): until it and its database
 * backends are idle, then /health answers.
 */
async function drain(port: number, pids: number[]): Promise<void> {
  if (!(await waitIdle(pids, 600_000)))
    throw new Error(`the server on :${port} did not drain its queue in 10 minutes`)
  const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(60_000) })
  await response.arrayBuffer()
}

type Cpu = ScenarioResult['cpu']

/** A server under load: where it listens and its processes (the API with its database backends). */
interface Target {
  port: number
  connections: number
  requests: Scenario['requests']
  pids: number[]
}

interface Run {
  m: Measurement
  /** CPU time of the target's processes during the run, µs. */
  serverUs: number
  oursCores: number
  foreignCores: number
}

/** One load run on `target`, then a wait until it has worked off what the run left queued. */
async function timedRun(target: Target, seconds: number, timeoutS?: number): Promise<Run> {
  const meter = cpuMeter(() => [process.pid, ...target.pids], cores)
  meter.start()
  const { port, requests } = target
  const m = await runLoad({
    port,
    connections: target.connections,
    requests,
    duration: seconds,
    settleS: SETTLE_S,
    timeoutS,
  })
  const { oursCores, foreignCores, usByPid } = meter.end()
  await drain(target.port, target.pids)
  const serverUs = target.pids.reduce((sum, p) => sum + (usByPid.get(p) ?? 0), 0)
  return { m, serverUs, oursCores, foreignCores }
}

/** Runs of one target as one measurement; the cores figures weighted by each run's seconds. */
function summed(runs: Run[]): { m: Measurement; cpu: Cpu } {
  const m = combine(runs.map((r) => r.m))
  const serverUs = runs.reduce((sum, r) => sum + r.serverUs, 0)
  const weighted = (f: (r: Run) => number) => runs.reduce((sum, r) => sum + f(r) * r.m.seconds, 0) / m.seconds
  const cpu = {
    oursCores: weighted((r) => r.oursCores),
    foreignCores: weighted((r) => r.foreignCores),
    serverUsPerRequest: m.responses > 0 ? serverUs / m.responses : null,
  }
  return { m, cpu }
}

// With a baseline to alternate with, a scenario's measured seconds are cut into slices of about
// this length, each between two baseline slices of the same length; each slice runs SETTLE_S
// first on its new connections, unmeasured (see runLoad()).
const SLICE_S = 2
const SETTLE_S = 0.5

/**
 * Warm-up, then the measured run; RSS, CPU noise and (with --profile) a CPU profile around it.
 * With `alternateWith` (the baseline), the measured seconds alternate with the baseline's in
 * slices — baseline, scenario, baseline, …, scenario, baseline — and the baseline's slices come
 * back as `baseline`: both then ran on the same machine, in the same minute. On this shared
 * machine the baseline alone moved from 38,700 to 23,500 req/s (25 → 38 µs of CPU a request)
 * between two runs 20 s apart, so a ratio against a separate run measured that drift as much as
 * the API.
 */
async function measure(
  ctx: RunContext,
  scenario: Scenario,
  port: number,
  options: { connections?: number; timeoutS?: number; profileTitle?: string; alternateWith?: Target } = {},
): Promise<{
  m: Measurement
  peakRssMb: number | null
  cpu: Cpu
  baseline: { m: Measurement; cpu: Cpu } | null
}> {
  const pid = scenario.id === 'baseline' ? ctx.baselinePid : (ctx.api?.server.pid ?? null)
  const sampler = scenario.id === 'baseline' || pid === null ? null : rssSampler(pid)
  const servers = async () => [
    ...(pid === null ? [] : [pid]),
    ...(scenario.id === 'baseline' ? [] : await ctx.databasePids()),
  ]
  const target = {
    port,
    connections: options.connections ?? connections,
    requests: scenario.requests,
    pids: await servers(),
  }
  if (warmup > 0) {
    await runLoad({ ...target, duration: warmup, timeoutS: options.timeoutS })
    await drain(port, await servers())
  }
  target.pids = await servers()
  const profiling = Boolean(options.profileTitle && ctx.api?.profileDir && pid !== null)
  if (profiling) process.kill(pid as number, 'SIGUSR2')
  const baseline = options.alternateWith
  const slices = baseline ? Math.max(1, Math.round(duration / SLICE_S)) : 1
  const runs: Run[] = []
  const baselineRuns: Run[] = []
  for (let i = 0; i < slices; i++) {
    if (baseline) baselineRuns.push(await timedRun(baseline, duration / slices))
    runs.push(await timedRun(target, duration / slices, options.timeoutS))
  }
  if (baseline) baselineRuns.push(await timedRun(baseline, duration / slices))
  if (profiling) {
    process.kill(pid as number, 'SIGUSR2')
    profiles += 1
    const file = join(ctx.api?.profileDir as string, `profile-${profiles}.cpuprofile`)
    if (await waitForFile(file, 30_000)) {
      profileSections.push(profileMarkdown(options.profileTitle as string, summarize(file)))
    } else log(`  (no profile written for ${scenario.id})`)
  }
  sampler?.stop()
  return {
    ...summed(runs),
    peakRssMb: sampler?.peak() ?? null,
    baseline: baseline ? summed(baselineRuns) : null,
  }
}

function describe(r: ScenarioResult): string {
  const issues = problems(r.m)
  return `  ${(r.label ?? r.scenario.id).padEnd(8)} ${Math.round(r.m.rps).toLocaleString('en').padStart(7)} req/s  p50 ${r.m.p50.toFixed(2)} ms  p99 ${r.m.p99.toFixed(2)} ms${r.ratio === null ? '' : `  ratio ${r.ratio.toFixed(2)}`}${r.cpu.serverUsPerRequest === null ? '' : `  server CPU ${Math.round(r.cpu.serverUsPerRequest)} µs/req`}  (other load ${r.cpu.foreignCores.toFixed(2)} cores)${issues ? `  INVALID: ${issues}` : ''}`
}

async function main() {
  const startedAt = new Date()
  const loadBefore = loadAverage()
  log(`Amparo bench — ${kind}${args.scale ? ', scale check' : ''}; ${machine()}; load average ${loadBefore}`)

  if (!args['no-build']) {
    log('Building (npm run build)…')
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', timeout: 300_000 })
    if (build.status !== 0) throw new Error('npm run build failed; fix the build or pass --no-build')
  }
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`)

  tmp = mkdtempSync(join(tmpdir(), 'amparo-bench-'))
  let database: Record<string, string>
  let target: string
  if (kind === 'sqlite') {
    target = join(tmp, 'amparo.sqlite')
    database = { AMPARO_SQLITE_FILE: target }
  } else {
    const created = await createPostgresDatabase(
      args['pg-url'],
      `amparo_bench_${randomBytes(4).toString('hex')}`,
    )
    dropDatabase = created.drop
    target = created.url
    database = { DATABASE_URL: target }
  }
  const env = serviceEnv(database)

  log('Setting up: migrate, demo partners, a third partner, plans…')
  const credentials = setUpPartners(env)
  // 45 / 30 / 25 % of the subscriptions; the scale check: 1,000, none, and the large partner.
  const first = Math.round(subscriptions * 0.45)
  const second = Math.round(subscriptions * 0.3)
  const counts = args.scale ? [1000, 0, scaleRows] : [first, second, subscriptions - first - second]
  log(
    `Seeding ${counts.reduce((a, b) => a + b, 0).toLocaleString('en')} subscriptions (${counts.join(' / ')})${args.scale ? ' without installments' : ' with installments'}…`,
  )
  const dataset = await seed({
    kind,
    target,
    partners: credentials.map((c, i) => ({
      id: c.id,
      gateway: c.gateway,
      subscriptions: counts[i] as number,
    })),
    installments: !args.scale,
    log,
  })
  const dbSize =
    kind === 'sqlite' ? `${(statSync(target).size / 2 ** 20).toFixed(0)} MB file` : 'fresh database'
  log(
    `  ${dataset.installments.toLocaleString('en')} installments; seeded in ${dataset.seconds.toFixed(1)} s (${dbSize})`,
  )

  const apiPort = await freePort()
  const api = await startApi(env, apiPort)
  log(
    `API pid ${api.server.pid} on :${apiPort}; start-up to /health: ${api.startups.map((s) => `${s.toFixed(0)} ms`).join(', ')}; RSS at rest ${api.idleRssMb.toFixed(0)} MB`,
  )
  const sessions: Session[] = []
  for (const [i, c] of credentials.entries()) {
    sessions.push({ partner: dataset.partners[i] as PartnerData, token: await login(apiPort, c) })
  }
  const ctx: RunContext = { api, baselinePid: null, databasePids: async () => [] }
  if (kind === 'postgres') {
    ctx.databasePids = async () => {
      const client = new pg.Client({ connectionString: target })
      await client.connect()
      try {
        const { rows } = await client.query<{ pid: number }>(
          'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
        )
        return rows.map((r) => Number(r.pid))
      } finally {
        await client.end()
      }
    }
  }
  const settings = `${connections} connections, ${warmup} s warm-up + ${duration} s measured per scenario, LOG_LEVEL=info (request log to a file), AMPARO_RATE_LIMIT=1000000, API started with \`node ${START_NODE_FLAGS.join(' ')}\` as \`npm start\`${args['api-node-args'] ? `, API node flags \`${args['api-node-args']}\`` : ''}${args.profile ? ', **CPU profiler on** (slower), the API run unbundled (`dist/cli/main.js`) so samples show their package' : ''}`
  const datasetLine = `${(dataset.lastId - dataset.firstId + 1).toLocaleString('en')} subscriptions (${counts.map((n) => n.toLocaleString('en')).join(' / ')} for the 3 partners), ${dataset.installments.toLocaleString('en')} installments, ${dataset.customers.toLocaleString('en')} customers; ${dataset.engineVersion}`

  if (args.scale) {
    await runScale(ctx, apiPort, sessions, { startedAt, loadBefore, settings, datasetLine })
    return
  }

  const skipE = await sanityChecks(apiPort, sessions)
  if (skipE && only.has('e')) log(`Skipping (e): ${skipE}`)
  if (args.against !== undefined) {
    await stop(api.server.child)
    await runAgainst(ctx, env, apiScenarios(dataset, sessions), skipE, args.against)
    return
  }
  const body = await sampleResource(apiPort, dataset, sessions)
  const bodyFile = join(tmp, 'baseline-body.json')
  writeFileSync(bodyFile, body)
  const baselinePort = await freePort()
  const baseline = await startServer({
    name: 'baseline',
    args: [join(ROOT, 'bench/baseline-server.mjs')],
    env: { PATH: process.env.PATH, PORT: String(baselinePort), BASELINE_BODY_FILE: bodyFile },
    port: baselinePort,
    healthPath: '/health',
  })
  ctx.baselinePid = baseline.pid
  const loggedPort = await freePort()
  const logged = await startServer({
    name: 'baseline with request logging',
    args: [join(ROOT, 'bench/baseline-server.mjs')],
    env: {
      PATH: process.env.PATH,
      PORT: String(loggedPort),
      BASELINE_BODY_FILE: bodyFile,
      BASELINE_LOG_FILE: join(tmp, 'baseline.log'),
    },
    port: loggedPort,
    healthPath: '/health',
  })
  log(`Baseline pid ${baseline.pid} on :${baselinePort}, body ${Buffer.byteLength(body)} bytes`)

  const scenarios = apiScenarios(dataset, sessions)
  const targets = TARGETS[kind]
  const results: ScenarioResult[] = []
  const baselineRuns: Measurement[] = []

  const runBaseline = async (label: string) => {
    log(`Running baseline (${label})…`)
    const { m, cpu } = await measure(ctx, baselineScenario(), baselinePort)
    const r: ScenarioResult = {
      scenario: {
        ...baselineScenario(),
        title: `bare Fastify, static ${Buffer.byteLength(body)}-byte JSON (${label})`,
      },
      m,
      peakRssMb: null,
      cpu,
      ratio: null,
      checks: [],
    }
    log(describe(r))
    return r
  }
  const baselineFirst = await runBaseline('before')
  log('Running the baseline with request logging (reference only)…')
  ctx.baselinePid = logged.pid
  const loggedRun = await measure(ctx, baselineScenario(), loggedPort)
  ctx.baselinePid = baseline.pid
  await stop(logged.child)
  const loggedResult: ScenarioResult = {
    label: 'base+log',
    scenario: {
      ...baselineScenario(),
      id: 'baseline',
      title: 'reference: the same bare Fastify with request logging (pino, info)',
    },
    ...loggedRun,
    ratio: null,
    checks: [],
  }
  // Each scenario alternates with the baseline (see measure()); its ratio is against those slices.
  const apiResults: ScenarioResult[] = []
  const timeline: ScenarioResult[] = [baselineFirst, loggedResult]
  const alternate = {
    port: baselinePort,
    connections,
    requests: baselineScenario().requests,
    pids: [baseline.pid],
  }
  for (const id of ['a', 'b', 'c', 'd', 'e'] as const) {
    if (!only.has(id) || (id === 'e' && skipE)) continue
    const scenario = scenarios[id]
    log(`Running (${id}) ${scenario.title}, alternating with the baseline…`)
    const measured = await measure(ctx, scenario, apiPort, {
      profileTitle: `(${id}) ${scenario.title} — ${kind}`,
      alternateWith: alternate,
    })
    const around = measured.baseline as NonNullable<typeof measured.baseline>
    baselineRuns.push(around.m)
    const r: ScenarioResult = { ...measured, scenario, ratio: measured.m.rps / around.m.rps, checks: [] }
    const baselineRow: ScenarioResult = {
      label: `base·${id}`,
      scenario: { ...baselineScenario(), title: `the baseline's slices alternating with (${id})` },
      ...around,
      peakRssMb: null,
      ratio: null,
      checks: [],
    }
    log(describe(baselineRow))
    apiResults.push(r)
    timeline.push(baselineRow, r)
  }
  const baselineRates = baselineRuns.map((m) => m.rps)

  for (const r of apiResults) {
    const id = r.scenario.id
    const ratio = r.ratio ?? Number.NaN
    const ratioTarget = targets.ratio[id]
    if (ratioTarget !== undefined)
      r.checks.push({ what: 'ratio ≥', target: String(ratioTarget), ok: ratio >= ratioTarget })
    if (targets.p99 && id !== 'e') {
      const limit = P99[r.scenario.kind]
      r.checks.push({ what: 'p99 ≤', target: `${limit} ms`, ok: r.m.p99 <= limit })
    }
    log(describe(r))
  }
  // The reference ran right after the first baseline run.
  loggedResult.ratio = loggedResult.m.rps / baselineFirst.m.rps
  results.push(...timeline)

  const memory = memoryOf(api.server.pid)
  await stop(api.server.child)
  await stop(baseline.child)
  const startupMedian = median(api.startups)
  const processChecks: Check[] = [
    {
      what: `peak RSS (VmHWM) ${memory?.hwmMb.toFixed(0) ?? '?'} MB (${api.idleRssMb.toFixed(0)} MB at rest) ≤`,
      target: `${MAX_RSS_MB} MB`,
      ok: (memory?.hwmMb ?? Infinity) <= MAX_RSS_MB,
    },
    {
      what: `start-up to /health, median of 3: ${startupMedian.toFixed(0)} ms ≤`,
      target: `${MAX_STARTUP_MS} ms`,
      ok: startupMedian <= MAX_STARTUP_MS,
    },
  ]
  const logSize = existsSync(api.logFile) ? statSync(api.logFile).size : 0
  const loadAfter = loadAverage()

  log('')
  log(consoleTable(results))
  log('')
  for (const c of processChecks) log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.what} ${c.target}`)
  if (skipE && only.has('e')) log(`(e) skipped: ${skipE}`)
  const invalid = results.filter((r) => problems(r.m))
  if (invalid.length)
    log(`\n${invalid.length} scenario(s) had non-2xx responses or errors: their figures are not valid.`)
  log(
    `load average before ${loadBefore}, after ${loadAfter}; request log ${(logSize / 2 ** 20).toFixed(1)} MB`,
  )

  if (!args['no-write']) {
    const section = [
      `### ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} — ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      '',
      `- Machine: ${machine()}; load average before ${loadBefore}, after ${loadAfter}.`,
      `- Dataset: ${datasetLine}; seeded in ${dataset.seconds.toFixed(0)} s.`,
      `- Settings: ${settings}. Each scenario's measured seconds alternate with the baseline's in slices of about ${SLICE_S} s (baseline, scenario, …, scenario, baseline), and its ratio is against those baseline slices (\`base·x\` rows; ${Math.round(Math.min(...baselineRates)).toLocaleString('en')} – ${Math.round(Math.max(...baselineRates)).toLocaleString('en')} req/s over the scenarios); the reference with request logging against the first baseline run, just before it.`,
      `- "Other load": CPU that processes other than ${kind === 'postgres' ? 'the bench, its servers and the PostgreSQL backends serving the API' : 'the bench and its servers'} used during the measured seconds, in cores of ${cores} — anything well above 0 means the figures are disturbed.`,
      '',
      resultsMarkdown(results),
      '',
      ...processChecks.map((c) => `- ${c.ok ? '✅' : '❌'} ${c.what} ${c.target}`),
      `- Start-ups (process spawn to the first 200 of /health, migrated and seeded database): ${api.startups.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}. Request log written: ${(logSize / 2 ** 20).toFixed(0)} MB.`,
      ...(skipE && only.has('e') ? [`- (e) skipped: ${skipE}.`] : []),
      ...(invalid.length
        ? [`- ⚠️ ${invalid.map((r) => r.scenario.id).join(', ')}: non-2xx responses or errors — not valid.`]
        : []),
    ].join('\n')
    // A profiled run is slower: its figures go with its profiles, never over the plain results.
    if (args.profile) {
      writeSection(
        DOC,
        `profile-${kind}`,
        [
          section.replace(
            /^### .*/,
            `### CPU profiles — ${kind}, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
          ),
          '',
          ...profileSections,
        ].join('\n'),
      )
    } else writeSection(DOC, `results-${kind}`, section)
    log(`\nWrote ${DOC}`)
  }
}

/**
 * `--against REV`: REV's API and this checkout's side by side on the same database, scenario by
 * scenario, in `--pairs` fresh pairs of processes. Two processes of one build differ by up to
 * 25 % in CPU a request for their whole life (JIT and memory layout, the core the scheduler keeps
 * them on), so a single pair measures that luck as much as the change: every pair here is new,
 * and which side starts and runs first alternates from pair to pair. Within a pair the measured
 * seconds alternate between the two in slices; the figure is the server CPU a request (the
 * API's, plus its PostgreSQL backends'), which depends far less than req/s on what else runs.
 */
async function runAgainst(
  ctx: RunContext,
  env: NodeJS.ProcessEnv,
  scenarios: ReturnType<typeof apiScenarios>,
  skipE: string | null,
  rev: string,
) {
  log(`Building ${rev} in a temporary worktree…`)
  revision = buildRevision(ROOT, rev, join(tmp, 'against'))
  const sides = [
    { label: `before (${revision.commit})`, cli: revision.cli },
    { label: 'after (this checkout)', cli: CLI },
  ]
  const nodeArgs = [...START_NODE_FLAGS, ...args['api-node-args'].split(' ').filter(Boolean)]
  const slices = Math.max(1, Math.round(duration / SLICE_S))
  const summary: string[] = []
  for (const id of ['a', 'b', 'c', 'd', 'e'] as const) {
    if (!only.has(id) || (id === 'e' && skipE)) continue
    const scenario = scenarios[id]
    log(`(${id}) ${scenario.title}: ${pairs} pairs, ${duration} s each side a pair in ${slices} slices`)
    const ratios: number[] = []
    const totals = sides.map(() => ({ us: 0, responses: 0 }))
    for (let pair = 0; pair < pairs; pair++) {
      const first = pair % 2
      const servers: Server[] = []
      try {
        for (const i of [first, 1 - first]) {
          const side = sides[i] as (typeof sides)[number]
          const port = await freePort()
          servers[i] = await startServer({
            name: `API ${side.label}`,
            args: [...nodeArgs, side.cli, 'serve'],
            env: { ...env, PORT: String(port) },
            port,
            stdoutFile: join(tmp, `api-${i}.log`),
            healthPath: '/health',
          })
        }
        const targets: Target[] = []
        for (const s of servers) {
          const target = { port: s.port, connections, requests: scenario.requests, pids: [s.pid] }
          if (warmup > 0) await runLoad({ ...target, duration: warmup })
          targets.push(target)
        }
        // On PostgreSQL both sides' backends are counted with each side: the idle side's cost
        // nothing while the other is measured.
        for (const t of targets) {
          t.pids = [t.pids[0] as number, ...(await ctx.databasePids())]
          await drain(t.port, t.pids)
        }
        const runs: Run[][] = [[], []]
        for (let k = 0; k < slices; k++) {
          const order = (first + k) % 2 === 0 ? [0, 1] : [1, 0]
          for (const i of order) runs[i]?.push(await timedRun(targets[i] as Target, duration / slices))
        }
        const perRequest = runs.map((r, i) => {
          const { m, cpu } = summed(r)
          const us = cpu.serverUsPerRequest ?? Number.NaN
          const total = totals[i] as { us: number; responses: number }
          total.us += us * m.responses
          total.responses += m.responses
          return { us, rps: m.rps, issues: problems(m) }
        })
        const [before, after] = perRequest as [(typeof perRequest)[number], (typeof perRequest)[number]]
        ratios.push(after.us / before.us)
        log(
          `  pair ${pair + 1}: before ${before.us.toFixed(1)} µs (${Math.round(before.rps).toLocaleString('en')} req/s), after ${after.us.toFixed(1)} µs (${Math.round(after.rps).toLocaleString('en')} req/s): ${(after.us / before.us).toFixed(3)}${before.issues || after.issues ? `  INVALID: ${before.issues || after.issues}` : ''}`,
        )
      } finally {
        for (const s of servers) if (s) await stop(s.child)
      }
    }
    const sorted = [...ratios].sort((x, y) => x - y)
    const [b, a] = totals.map((t) => t.us / t.responses) as [number, number]
    summary.push(
      `(${id}) server CPU a request: before ${b.toFixed(1)} µs, after ${a.toFixed(1)} µs (${a / b >= 1 ? '+' : '−'}${Math.abs(100 * (a / b - 1)).toFixed(1)} %); after / before per pair: median ${median(ratios).toFixed(3)}, range ${(sorted[0] as number).toFixed(2)} – ${(sorted.at(-1) as number).toFixed(2)} (${pairs} pair${pairs === 1 ? '' : 's'})`,
    )
  }
  log('')
  log(`${sides[0]?.label} vs ${sides[1]?.label}, ${kind}, ${machine()}; load average ${loadAverage()}`)
  for (const line of summary) log(line)
}

async function runScale(
  ctx: RunContext,
  port: number,
  sessions: Session[],
  meta: { startedAt: Date; loadBefore: string; settings: string; datasetLine: string },
) {
  const small = sessions[0] as Session
  const large = sessions[2] as Session
  for (const s of [small, large]) {
    const r = await request(port, '/subscriptions?page=1&per_page=15', {
      headers: { authorization: `Bearer ${s.token}` },
    })
    expect(
      r.status === 200 && (r.body.meta as { total: number }).total === s.partner.subscriptions,
      `list of partner ${s.partner.id}`,
    )
  }
  const rows: ScenarioResult[] = []
  const single: Measurement[] = []
  for (const s of [small, large]) {
    const scenario = pageScenario(s)
    log(`Running ${scenario.title}…`)
    const { m, peakRssMb, cpu } = await measure(ctx, scenario, port, {
      timeoutS: 120,
      profileTitle: `scale: ${scenario.title} — ${kind}`,
    })
    rows.push({ scenario, m, peakRssMb, cpu, ratio: null, checks: [] })
    log(describe(rows[rows.length - 1] as ScenarioResult))
    log('  one connection (service time without queueing)…')
    const one = await runLoad({
      port,
      connections: 1,
      duration: Math.min(duration, 10),
      requests: scenario.requests,
      timeoutS: 120,
    })
    await drain(port, [ctx.api?.server.pid ?? 0, ...(await ctx.databasePids())])
    single.push(one)
    log(`  1 conn: ${one.rps.toFixed(1)} req/s, p50 ${one.p50.toFixed(2)} ms, p99 ${one.p99.toFixed(2)} ms`)
  }
  const [smallRow, largeRow] = rows as [ScenarioResult, ScenarioResult]
  // No request finished inside the window: the p50 is at least the window itself.
  const unfinished = largeRow.m.count2xx === 0
  // Fewer answers than connections: the requests still queued when the window closed are not in
  // the percentiles, so the p50 shown is a lower bound.
  const lowerBound = largeRow.m.count2xx < connections
  const ratio = (unfinished ? duration * 1000 : largeRow.m.p50) / smallRow.m.p50
  const ratioText = `${lowerBound ? '≥ ' : ''}${ratio.toFixed(1)}×`
  const ok = !lowerBound && ratio <= 2 && !problems(largeRow.m)
  largeRow.checks.push({ what: `p50 ${ratioText} the 1,000-row partner's, ≤`, target: '2×', ok })
  if (unfinished)
    largeRow.checks.push({
      what: `no request finished within the ${duration} s window: p50 >`,
      target: `${duration * 1000} ms`,
      ok: false,
    })
  if (ctx.api) await stop(ctx.api.server.child)
  log('')
  log(consoleTable(rows))
  log(
    `\n${ok ? 'ok  ' : 'FAIL'} p50 with ${large.partner.subscriptions.toLocaleString('en')} rows is ${ratioText} the p50 with ${small.partner.subscriptions.toLocaleString('en')} (target ≤ 2×)`,
  )
  const boundNote = `only ${largeRow.m.count2xx} request(s) of the ${large.partner.subscriptions.toLocaleString('en')}-row partner finished inside the ${duration} s window, fewer than the ${connections} connections: its p50 is a lower bound (the rest were still queued)`
  if (lowerBound) log(`  (${boundNote})`)
  if (!args['no-write']) {
    writeSection(
      DOC,
      `scale-${kind}`,
      [
        `### Scale check (point 3), ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} — ${meta.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
        '',
        `- Machine: ${machine()}; load average before ${meta.loadBefore}, after ${loadAverage()}.`,
        `- Dataset: ${meta.datasetLine} (no installments: the list does not read them).`,
        `- Settings: ${meta.settings}; request timeout 120 s.`,
        '',
        resultsMarkdown(rows),
        '',
        ...(lowerBound ? [`Note: ${boundNote}.`, ''] : []),
        `With one connection (service time, no queueing): ${single.map((m, i) => `${(i === 0 ? small : large).partner.subscriptions.toLocaleString('en')} rows → p50 ${m.p50.toFixed(2)} ms, ${m.rps.toFixed(1)} req/s`).join('; ')}.`,
      ].join('\n'),
    )
    if (profileSections.length) {
      writeSection(
        DOC,
        `profile-scale-${kind}`,
        [`### CPU profiles — scale check, ${kind}`, '', ...profileSections].join('\n'),
      )
    }
    log(`\nWrote ${DOC}`)
  }
}

main()
  .then(() => cleanup())
  .then(() => process.exit(0))
  .catch(async (error: unknown) => {
    process.stderr.write(`\nbench: ${error instanceof Error ? error.message : String(error)}\n`)
    await cleanup()
    process.exit(1)
  })
