// `npm run bench`: the API under load beside a bare Fastify server and the floor. docs/benchmarks.md.
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { recordRequests, replay, statementsPerCall } from './lib/floor.js'
import {
  apiScenarios,
  BASE,
  type Measurement,
  makers,
  merge,
  pageOf,
  percentile,
  rps,
  runLoad,
  type Scenario,
  type ScenarioId,
  type Session,
  TITLES,
} from './lib/load.js'
import {
  cpuMeter,
  freePort,
  memoryOf,
  type Server,
  startServer,
  stop,
  stopAll,
  waitIdle,
} from './lib/proc.js'
import { buildRevision } from './lib/revision.js'
import { createPostgresDatabase, type PartnerData, seed } from './lib/seed.js'

// The issue's targets: CPU ratios to the floor on SQLite, and the limits every run checks.
const FLOOR_TARGETS: Partial<Record<ScenarioId, number>> = { a: 0.5, b: 0.35, c: 0.55, d: 0.3 }
const P99_MS = { read: 25, write: 60 }
const MAX_RSS_MB = 200
const MAX_STARTUP_MS = 1500

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = join(ROOT, 'dist/amparo.mjs')
const HELP = `npm run bench -- [options]
  --db sqlite|postgres   database (default sqlite; postgres: a fresh database, dropped at the end)
  --pg-url URL           the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
  --subscriptions N      subscriptions seeded over 3 partners (default 100000)
  --duration S           measured seconds a scenario (default 10); --warmup S before it (default 2)
  --connections N        concurrent connections (default 50)
  --only a,b,c,d,e       scenarios to run (default all)
  --against REV          instead: REV (built in a temporary git worktree) against this checkout,
                         server CPU a request, in --pairs N (default 6) fresh pairs of API processes
  --scale                instead: (b) for a partner with 1,000 and one with --scale-rows (1000000)
  --no-build             use dist/ as it is (default: npm run build first)
  --time-limit MIN       stop everything after MIN minutes (default 15; 45 with --against or --scale)
`
const { values: args } = (() => {
  try {
    return parseArgs({
      options: {
        db: { type: 'string', default: 'sqlite' },
        'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
        subscriptions: { type: 'string', default: '100000' },
        duration: { type: 'string', default: '10' },
        warmup: { type: 'string', default: '2' },
        connections: { type: 'string', default: '50' },
        only: { type: 'string', default: 'a,b,c,d,e' },
        against: { type: 'string' },
        pairs: { type: 'string', default: '6' },
        scale: { type: 'boolean', default: false },
        'scale-rows': { type: 'string', default: '1000000' },
        'no-build': { type: 'boolean', default: false },
        'time-limit': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    })
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
const duration = Number(args.duration)
const warmup = Number(args.warmup)
const connections = Number(args.connections)
const subscriptions = Number(args.subscriptions)
const pairs = Number(args.pairs)
const only = args.only.split(',').map((s) => s.trim()) as ScenarioId[]
if (
  (kind !== 'sqlite' && kind !== 'postgres') ||
  ![duration, connections, subscriptions, pairs, Number(args['scale-rows'])].every((n) => n > 0) ||
  !(warmup >= 0) ||
  !only.every((id) => 'abcde'.includes(id) && id.length === 1)
) {
  process.stderr.write(`bench: invalid options\n\n${HELP}`)
  process.exit(2)
}
const log = (line = '') => process.stdout.write(`${line}\n`)
const cores = cpus().length
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

/** The service's environment, rebuilt: nothing of the caller's may redirect it. */
function serviceEnv(database: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(AMPARO_|DATABASE_URL$|REDIS_URL$|DB_POOL_MAX$|HOST$|PORT$|LOG_LEVEL$)/.test(key),
    ),
  )
  return {
    ...env,
    ...database,
    AMPARO_ENV: 'test',
    AMPARO_JWT_KEYS: `bench=${randomBytes(24).toString('hex')}`,
    AMPARO_RATE_LIMIT: '1000000', // the per-partner limiter runs (its cost is measured) but never answers 429
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
  }
}

function cli(env: NodeJS.ProcessEnv, words: string[]): Record<string, unknown> {
  const r = spawnSync(process.execPath, [CLI, ...words, '--json'], { env, encoding: 'utf8', timeout: 60_000 })
  if (r.status !== 0) throw new Error(`amparo ${words.join(' ')} failed: ${r.stderr || r.error}`)
  return JSON.parse(r.stdout.trim().split('\n').pop() as string)
}

interface Credentials {
  id: number
  gateway: 'external' | 'own'
  client_id: string
  client_secret: string
}

/** Through the CLI: migrate, the demo (2 partners, catalog, plans), a third external-gateway partner. */
function setUpPartners(env: NodeJS.ProcessEnv): Credentials[] {
  cli(env, ['migrate'])
  const demo = cli(env, ['demo']) as { partners: Credentials[] }
  const id = String(cli(env, ['partner', 'create', '--name', 'Loja Bench', '--gateway', 'external']).id)
  const credentials = cli(env, ['credentials', 'issue', id]) as { client_id: string; client_secret: string }
  for (const [installments, rate] of [
    ['12', '0.011'],
    ['24', '0.0095'],
  ] as const) {
    cli(env, [
      ...['plan', 'create', '--partner', id, '--kind', 'subscription', '--coverage', 'Roubo e furto'],
      ...['--name', `Bench ${installments}x`, '--installments', installments],
      ...['--monthly-rate', rate, '--franchise-rate', '0.15'],
    ])
  }
  return [...demo.partners, { id: Number(id), gateway: 'external', ...credentials }]
}

async function call(
  port: number,
  path: string,
  token?: string,
  init: { method?: string; body?: string } = {},
) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    ...init,
    headers: {
      accept: 'application/json',
      ...(init.body && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    signal: AbortSignal.timeout(60_000),
  })
  const text = await response.text()
  // biome-ignore lint/suspicious/noExplicitAny: JSON of several shapes, checked by the sanity checks
  type Json = any
  return {
    status: response.status,
    text,
    body: (text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : {}) as Json,
  }
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`sanity check failed: ${message}`)
}

/** Before any load: each list's total, a quotation, a contract and the payment of its installment 1. */
async function sanityChecks(port: number, sessions: Session[]): Promise<void> {
  for (const { partner, token } of sessions) {
    const page = await call(port, '/subscriptions?page=1&per_page=15', token)
    check(page.status === 200, `list of partner ${partner.id}: ${page.status} ${page.text.slice(0, 200)}`)
    check(
      page.body.meta.total === partner.subscriptions,
      `partner ${partner.id} lists ${page.body.meta.total} subscriptions, seeded ${partner.subscriptions}`,
    )
    const quote = await call(port, `/quotation?model_id=${partner.models[0]?.id}`, token)
    check(quote.status === 200, `quotation: ${quote.status} ${quote.text.slice(0, 200)}`)
  }
  const { partner, token } = sessions.find((s) => s.partner.gateway === 'external') as Session
  const body = JSON.stringify({
    plan_id: partner.plans[0]?.id,
    customer_id: partner.customerIds[0],
    model_id: partner.models[0]?.id,
  })
  const contract = await call(port, '/subscriptions', token, { method: 'POST', body })
  check(contract.status === 201, `contract: ${contract.status} ${contract.text.slice(0, 300)}`)
  const installments = await call(port, `/subscriptions/${contract.body.id}/installments`, token)
  const first = installments.body.find?.((i: { number: number }) => i.number === 1)
  check(
    installments.status === 200 && first,
    `installments: ${installments.status} ${installments.text.slice(0, 200)}`,
  )
  const path = `/subscriptions/${contract.body.id}/installments/${first.id}/notify-payment`
  const paid = await call(port, path, token, { method: 'POST' })
  check(paid.status >= 200 && paid.status < 300, `payment: ${paid.status} ${paid.text.slice(0, 200)}`)
}

/** The node flags of `npm start`, so the API runs as an operator starts it (its heap limits count). */
const START_FLAGS = (() => {
  const words = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string).split(
    /\s+/,
  )
  return words.slice(1, words.indexOf('dist/amparo.mjs'))
})()

const startApi = async (cliPath: string, env: NodeJS.ProcessEnv, logFile = '/dev/null') => {
  const port = await freePort()
  const args = [...START_FLAGS, cliPath, 'serve']
  return startServer({
    name: `API ${cliPath}`,
    args,
    env: { ...env, PORT: String(port) },
    port,
    stdoutFile: logFile,
  })
}

/** What one server did during one load run. */
interface Run {
  m: Measurement
  /** CPU of the server (and its PostgreSQL backends), µs. */
  serverUs: number
  otherCores: number
  peakRssMb: number
}

/** Load on `server` for `seconds` (warm-up first, if any); waits until it drained its queue. */
async function loadRun(
  server: Server,
  scenario: Scenario,
  seconds: number,
  backends: () => Promise<number[]>,
  warm = warmup,
) {
  const base = {
    port: server.port,
    connections,
    requests: scenario.requests,
    timeoutS: args.scale ? 120 : 10,
  }
  if (warm > 0) await runLoad({ ...base, seconds: warm })
  const pids = [server.pid, ...(await backends())]
  await waitIdle(pids)
  let peakRssMb = 0
  const sampler = setInterval(() => {
    peakRssMb = Math.max(peakRssMb, memoryOf(server.pid).rssMb)
  }, 100)
  const meter = cpuMeter(pids, [process.pid], cores)
  const m = await runLoad({ ...base, seconds })
  const { serverUs, otherCores } = meter()
  clearInterval(sampler)
  await waitIdle(pids)
  return { m, serverUs, otherCores, peakRssMb } satisfies Run
}

const perRequest = (runs: Run[]) =>
  runs.reduce((s, r) => s + r.serverUs, 0) /
  Math.max(
    1,
    runs.reduce((s, r) => s + r.m.responses, 0),
  )

interface Row {
  name: string
  runs: Run[]
  floorUs?: number
  floorNote?: string
  verdicts: string[]
}

const f = (n: number | undefined, digits = 0) =>
  n === undefined || !Number.isFinite(n)
    ? ''
    : n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })

function table(rows: Row[], baseUs: number): string {
  const head =
    '| scenario | req/s | p50 ms | p99 ms | CPU µs/req | floor µs/req | ÷ base | ÷ floor | RSS MB | other load | verdicts |'
  const lines = rows.map((row) => {
    const m = row.runs.map((r) => r.m).reduce(merge)
    const us = perRequest(row.runs)
    const rss = Math.max(...row.runs.map((r) => r.peakRssMb))
    const other = row.runs.reduce((s, r) => s + r.otherCores * r.m.seconds, 0) / m.seconds
    const cells = [
      row.name,
      f(rps(m)),
      f(percentile(m, 50), 2),
      f(percentile(m, 99), 2),
      f(us),
      row.floorUs === undefined ? '' : `${f(row.floorUs)}${row.floorNote ?? ''}`,
      row.name.startsWith('base') ? '' : f(baseUs / us, 2),
      row.floorUs === undefined ? '' : f(row.floorUs / us, 2),
      rss > 0 ? f(rss) : '',
      f(other, 2),
      [m.problems && `INVALID: ${m.problems}`, ...row.verdicts].filter(Boolean).join('; '),
    ]
    return `| ${cells.join(' | ')} |`
  })
  return [head, `|${' --- |'.repeat(11)}`, ...lines].join('\n')
}

async function main() {
  log(`Amparo bench, ${kind}; ${cores} × ${cpus()[0]?.model.trim()}, Node ${process.version}; load ${load()}`)
  if (!args['no-build']) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', timeout: 300_000 })
    if (build.status !== 0) throw new Error('npm run build failed')
  }
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`)
  tmp = mkdtempSync(join(tmpdir(), 'amparo-bench-'))
  let database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string }
  if (kind === 'sqlite') database = { kind, file: join(tmp, 'amparo.sqlite') }
  else {
    const created = await createPostgresDatabase(
      args['pg-url'],
      `amparo_bench_${randomBytes(4).toString('hex')}`,
    )
    undo.push(created.drop)
    database = { kind, url: created.url }
  }
  const target = database.kind === 'sqlite' ? database.file : database.url
  const env = serviceEnv(
    database.kind === 'sqlite' ? { AMPARO_SQLITE_FILE: target } : { DATABASE_URL: target },
  )
  log('Setting up through the CLI: migrate, demo, a third partner…')
  const credentials = setUpPartners(env)
  const first = Math.round(subscriptions * 0.45)
  const second = Math.round(subscriptions * 0.3)
  const rows = Number(args['scale-rows'])
  const counts = args.scale ? [1000, 0, rows] : [first, second, subscriptions - first - second]
  log(`Seeding ${counts.join(' / ')} subscriptions${args.scale ? '' : ' with installments'}…`)
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
  log(
    `  ${dataset.installments.toLocaleString('en')} installments, ${dataset.seconds.toFixed(1)} s; ${dataset.engineVersion}`,
  )
  const startups: number[] = []
  let api: Server | null = null
  for (let i = 0; i < 3; i++) {
    if (api) await stop(api.child)
    api = await startApi(CLI, env, join(tmp, 'api.log'))
    startups.push(api.startupMs)
  }
  const server = api as Server
  const restingRss = memoryOf(server.pid).rssMb
  const sessions: Session[] = []
  for (const [i, c] of credentials.entries()) {
    const body = JSON.stringify({ client_id: c.client_id, client_secret: c.client_secret })
    const r = await call(server.port, '/auth/login', undefined, { method: 'POST', body })
    check(r.status === 200, `login of partner ${c.id}: ${r.status} ${r.text}`)
    sessions.push({ partner: dataset.partners[i] as PartnerData, token: String(r.body.token) })
  }
  const backends = async () => {
    if (database.kind === 'sqlite') return []
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      const sql =
        'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()'
      return (await client.query<{ pid: number }>(sql)).rows.map((r) => Number(r.pid))
    } finally {
      await client.end()
    }
  }

  if (args.scale) {
    const [small, large] = [sessions[0] as Session, sessions[2] as Session]
    const runs: Run[] = []
    for (const s of [small, large]) {
      runs.push(await loadRun(server, pageOf(s), duration, backends))
      const us = perRequest(runs.slice(-1))
      log(
        `  ${pageOf(s).title}: ${us.toFixed(0)} µs a page, p50 ${percentile(runs.at(-1)?.m as Measurement, 50).toFixed(2)} ms`,
      )
    }
    const ratio = perRequest(runs.slice(1)) / perRequest(runs.slice(0, 1))
    log(
      `${ratio <= 2 ? 'ok  ' : 'FAIL'} paging cost at ${rows.toLocaleString('en')} rows is ${ratio.toFixed(2)} × at 1,000 (≤ 2 ×)`,
    )
    return
  }

  await sanityChecks(server.port, sessions)
  const ids = only.filter((id) => 'abcd'.includes(id)) as ('a' | 'b' | 'c' | 'd')[]
  const scenarios = apiScenarios(dataset, sessions)

  if (args.against) {
    await stop(server.child)
    log(`Building ${args.against} in a temporary worktree…`)
    const revision = buildRevision(ROOT, args.against, join(tmp, 'against'))
    undo.push(revision.remove)
    const sides = [revision.cli, CLI]
    const slices = Math.max(1, Math.round(duration / 2))
    const verdicts: string[] = []
    for (const id of only) {
      const totals = [
        { us: 0, n: 0 },
        { us: 0, n: 0 },
      ]
      const ratios: number[] = []
      for (let pair = 0; pair < pairs; pair++) {
        // Two processes of one build differ by up to 25 % for life (JIT, memory layout, the core
        // they run on), so every pair is new, and which side starts and runs first alternates.
        const order = pair % 2 ? [1, 0] : [0, 1]
        const servers: Server[] = []
        for (const side of order) servers[side] = await startApi(sides[side] as string, env)
        const runs: Run[][] = [[], []]
        for (const side of order)
          await runLoad({
            port: servers[side]?.port as number,
            connections,
            seconds: warmup || 0.5,
            requests: scenarios[id].requests,
          })
        for (let k = 0; k < slices; k++)
          for (const side of k % 2 ? [...order].reverse() : order)
            runs[side]?.push(
              await loadRun(servers[side] as Server, scenarios[id], duration / slices, backends, 0),
            )
        for (const s of servers) await stop(s.child)
        const us = runs.map(perRequest)
        runs.forEach((r, side) => {
          totals[side] = {
            us: (totals[side]?.us ?? 0) + r.reduce((s, x) => s + x.serverUs, 0),
            n: (totals[side]?.n ?? 0) + r.reduce((s, x) => s + x.m.responses, 0),
          }
        })
        const problems = runs
          .flat()
          .map((r) => r.m.problems)
          .filter(Boolean)
        ratios.push((us[1] as number) / (us[0] as number))
        log(
          `  (${id}) pair ${pair + 1}: before ${us[0]?.toFixed(1)} µs, after ${us[1]?.toFixed(1)} µs${problems.length ? `  INVALID: ${problems.join(', ')}` : ''}`,
        )
      }
      const [before, after] = totals.map((t) => t.us / t.n) as [number, number]
      const sorted = ratios.sort((x, y) => x - y)
      const median = sorted[Math.floor((sorted.length - 1) / 2)] as number
      verdicts.push(
        `${after <= before * 1.05 ? 'ok  ' : 'FAIL'} (${id}) ${TITLES[id]}: before ${before.toFixed(1)} µs, after ${after.toFixed(1)} µs a request (${after >= before ? '+' : '−'}${Math.abs(100 * (after / before - 1)).toFixed(1)} %); per pair median ${median.toFixed(3)}, range ${sorted[0]?.toFixed(2)} – ${sorted.at(-1)?.toFixed(2)}`,
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
  const mid = dataset.firstId + Math.floor((dataset.lastId - dataset.firstId) / 2)
  const owner = sessions[dataset.owner[mid - dataset.firstId] as number] as Session
  const sample = await call(server.port, `/subscriptions/${mid}`, owner.token)
  check(sample.status === 200, `GET /subscriptions/${mid}: ${sample.status}`)
  const bodyFile = join(tmp, 'body.json')
  writeFileSync(bodyFile, sample.text)
  const bare = async (logFile?: string) => {
    const port = await freePort()
    const bareEnv = {
      PATH: process.env.PATH,
      PORT: String(port),
      BARE_BODY_FILE: bodyFile,
      ...(logFile && { BARE_LOG_FILE: logFile }),
    }
    return startServer({
      name: 'bare server',
      args: [join(ROOT, 'bench/bare-server.mjs')],
      env: bareEnv,
      port,
    })
  }
  const [plain, logged] = [await bare(), await bare(join(tmp, 'bare.log'))]
  const none = async () => []
  const baseRow: Row = { name: 'base: bare Fastify', runs: [], verdicts: [] }
  const loggedRow: Row = { name: 'base+log: bare Fastify + request log', runs: [], verdicts: [] }
  // The bare servers run half their seconds before the scenarios and half after: the machine drifts.
  const bareRuns = async () => {
    log('Bare servers…')
    baseRow.runs.push(await loadRun(plain, BASE, duration / 2, none))
    loggedRow.runs.push(await loadRun(logged, BASE, duration / 2, none))
  }
  await bareRuns()

  log(`The floor: recording the requests' SQL in-process, replaying it on a bare ${kind} connection…`)
  const recorded = await recordRequests(
    env,
    join(tmp, 'record.sqlite'),
    makers(dataset, sessions, 99),
    ids,
    ids.length ? 100 : 0,
  )
  const sqlUs = new Map<string, { us: number; count: number }>()
  for (const [id, calls] of recorded) {
    const us = await replay(database, calls, Math.min(duration, 3))
    sqlUs.set(id, { us, count: statementsPerCall(calls) })
    log(`  (${id}) ${statementsPerCall(calls)} statements: ${us.toFixed(1)} µs`)
  }

  const results: Row[] = []
  for (const id of only) {
    log(`(${id}) ${TITLES[id]}…`)
    const run = await loadRun(server, scenarios[id], duration, backends)
    const sql = sqlUs.get(id)
    results.push({
      name: `(${id}) ${TITLES[id]}`,
      runs: [run],
      verdicts: [],
      floorUs: sql?.us,
      floorNote: sql && ` (${sql.count} st.)`,
    })
  }
  await bareRuns()
  const memory = memoryOf(server.pid)
  await stop(server.child)

  const baseUs = perRequest(baseRow.runs)
  const loggedUs = perRequest(loggedRow.runs)
  let met = 0
  let checked = 0
  const verdict = (ok: boolean, text: string) => {
    checked += 1
    met += ok ? 1 : 0
    return `${ok ? 'ok' : 'FAIL'} ${text}`
  }
  for (const [i, row] of results.entries()) {
    const id = only[i] as ScenarioId
    const us = perRequest(row.runs)
    if (row.floorUs !== undefined) row.floorUs += loggedUs
    const target = FLOOR_TARGETS[id]
    if (kind === 'sqlite' && target !== undefined && row.floorUs !== undefined)
      row.verdicts.push(verdict(row.floorUs / us >= target, `÷ floor ≥ ${target}`))
    if (kind === 'sqlite' && id !== 'e') {
      const limit = P99_MS[scenarios[id].kind]
      row.verdicts.push(verdict(percentile(row.runs[0]?.m as Measurement, 99) <= limit, `p99 ≤ ${limit} ms`))
    }
  }
  const startup = [...startups].sort((a, b) => a - b)[1] as number
  log('')
  log(table([baseRow, loggedRow, ...results], baseUs))
  log('')
  log(
    verdict(
      memory.hwmMb <= MAX_RSS_MB,
      `peak RSS ${memory.hwmMb.toFixed(0)} MB (${restingRss.toFixed(0)} at rest) ≤ ${MAX_RSS_MB} MB`,
    ),
  )
  log(
    verdict(
      startup <= MAX_STARTUP_MS,
      `start-up ${startup.toFixed(0)} ms (median of ${startups.map((s) => s.toFixed(0)).join(', ')}) ≤ ${MAX_STARTUP_MS} ms`,
    ),
  )
  log(
    `${met} of ${checked} verdicts met. floor = base+log (${loggedUs.toFixed(1)} µs) + the request's SQL on a bare driver; ÷ = CPU µs ratios.`,
  )
  log(
    `${dataset.lastId - dataset.firstId + 1} subscriptions, ${connections} connections, ${warmup} + ${duration} s a scenario; load ${load()}`,
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
