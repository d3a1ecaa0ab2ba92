// Whether the issue's ratio targets are within reach of any server that does what a request
// must, on this machine, now. For each scenario:
// - the budget: the bare Fastify server's CPU a request ÷ the target ratio — what the API may
//   spend a request if its ratio is to be met (a ratio is, to a few percent, the ratio of the two
//   servers' CPU a request: docs/benchmarks.md);
// - the floor: the same bare server writing the API's request log (the targets are with logging
//   on), plus the SQL statements the service runs for that request replayed on a bare
//   better-sqlite3 connection (prepared once, raw rows: no Kysely, no objects, no mapping, no
//   JSON). Nothing the API does can cost less than that while it reads or writes those rows;
// - the service's own work: the functions the routes call, in-process (principal lookup,
//   queries, mapping, JSON.stringify), with no HTTP, framework or logging.
//   npx tsx bench/ceiling.ts [--subscriptions 100000] [--seconds 3] [--http-seconds 4] [--pg-url URL]
// With --pg-url (any reachable database; nothing is written), also PostgreSQL's target for (a):
// its floor counts one bare round trip (client and backend CPU) for each of its two statements.
// Needs dist/ (`npm run build`) for the bare server. Seeds a temporary SQLite file like
// `npm run bench` (the same seed). Writes nothing outside its temporary folder.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.js'
import { createDb, type Db } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { loadDemo } from '../src/demo/demo.js'
import { findActivePrincipal, type PartnerContext } from '../src/modules/auth/principal.repository.js'
import { subscriptionQuoteResource } from '../src/modules/plans/plan.mapper.js'
import { quoteSubscriptionPlans } from '../src/modules/plans/quotation.service.js'
import { subscriptionResource } from '../src/modules/subscriptions/subscription.mapper.js'
import {
  findSubscriptionView,
  listSubscriptionViews,
} from '../src/modules/subscriptions/subscription.repository.js'
import { contractSubscription } from '../src/modules/subscriptions/subscription.service.js'
import { type BareServerCost, bareServerCost } from './lib/bare-server.js'
import { pgRoundTripUs } from './lib/pg-round-trip.js'
import { type Dataset, prng, seed } from './lib/seed.js'
import { type Recorded, record, replay } from './lib/statements.js'
import { TARGETS } from './lib/targets.js'

const { values: args } = parseArgs({
  options: {
    subscriptions: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '3' },
    'http-seconds': { type: 'string', default: '4' },
    'pg-url': { type: 'string' },
  },
})
const out = (line = '') => process.stdout.write(`${line}\n`)
const BASE = 'http://127.0.0.1'
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const TIME_ZONE = 'America/Sao_Paulo'

/** Calls `fn` for `seconds` after a one-second warm-up; µs per call. */
async function measure(seconds: number, fn: () => Promise<unknown>): Promise<number> {
  const run = async (ms: number) => {
    const started = performance.now()
    let calls = 0
    for (; performance.now() - started < ms; calls++) await fn()
    return ((performance.now() - started) * 1000) / calls
  }
  await run(1000)
  return run(seconds * 1000)
}

interface Seller {
  context: PartnerContext
  credentialId: number
}

async function sellers(db: Db, dataset: Dataset): Promise<Seller[]> {
  const found: Seller[] = []
  for (const partner of dataset.partners) {
    const credential = await db
      .selectFrom('credentials')
      .select('id')
      .where('partner_id', '=', partner.id)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow()
    const context = await findActivePrincipal(db, { kind: 'client', id: credential.id })
    if (!context) throw new Error(`partner ${partner.id} has no active credential`)
    found.push({ context, credentialId: credential.id })
  }
  return found
}

/** The lookup every authenticated request makes (the token itself is verified from a cache). */
const authenticate = (db: Db, seller: Seller) =>
  findActivePrincipal(db, { kind: 'client', id: seller.credentialId })

interface Scenario {
  name: string
  id: 'a' | 'b' | 'c' | 'd'
  call: () => Promise<unknown>
  /** What to record and replay instead of `call`, when `call` changes the data for good. */
  replayed?: () => Promise<unknown>
}

interface Cost {
  scenario: Scenario
  /** The service's functions in-process, µs a call. */
  serviceUs: number
  /** Its statements on a bare connection, µs a call, and how many (transaction control aside). */
  statementsUs: number
  count: number
}

function report(costs: Cost[], bare: BareServerCost, seconds: number): void {
  const us = (n: number) => n.toFixed(1).padStart(8)
  out()
  out(`The bare server: ${bare.plainUs.toFixed(1)} µs of CPU a request; with the API's request log`)
  out(`${bare.loggedUs.toFixed(1)} µs. Statements and the service's own work: ${seconds} s each after 1 s`)
  out('of warm-up, one call at a time, SQLite. All figures µs a request.')
  out()
  out(
    `  ${'scenario'.padEnd(42)} ${'target'.padStart(6)} ${'budget'.padStart(8)} ${'stmts'.padStart(8)} ${'floor'.padStart(8)} ${'service'.padStart(8)}  verdict`,
  )
  for (const { scenario, serviceUs, statementsUs, count } of costs) {
    const ratio = TARGETS.sqlite.ratio[scenario.id] as number
    const budget = bare.plainUs / ratio
    const floor = bare.loggedUs + statementsUs
    // What the service does beyond its statements (mapping, JSON, Kysely), in-process.
    const beyond = serviceUs - statementsUs
    const verdict =
      floor > budget
        ? `out of reach: the floor is ${(floor / budget).toFixed(2)} × the budget`
        : `the floor leaves ${(budget - floor).toFixed(1)} µs; mapping and JSON alone take ${beyond.toFixed(1)}${beyond > budget - floor ? ': out of reach' : ''}`
    out(
      `  ${`${scenario.name} (${count} st.)`.padEnd(42)} ${ratio.toFixed(2).padStart(6)} ${us(budget)} ${us(statementsUs)} ${us(floor)} ${us(serviceUs)}  ${verdict}`,
    )
  }
  out()
  out('budget  = the bare server ÷ the target ratio: what the API may spend a request to meet it')
  out("stmts   = the request's SQL statements replayed on a bare better-sqlite3 connection")
  out('floor   = the bare server with the request log + stmts (no token check, routing, validation,')
  out('          mapping or serialisation; (b) logs a 1 KB body, not its 16 KB; (d) rolls back)')
  out('service = the service functions the route calls, in-process, without HTTP or logging')
}

/** The four scenarios as the routes run them, on random sellers, subscriptions and models. */
function scenariosOf(db: Db, dataset: Dataset, all: Seller[]): Scenario[] {
  const random = prng(7)
  const ownerOf = (id: number) => dataset.owner[id - dataset.firstId] as number

  const read = async () => {
    const id = dataset.firstId + Math.floor(random.next() * (dataset.lastId - dataset.firstId + 1))
    const seller = all[ownerOf(id)] as Seller
    await authenticate(db, seller)
    const row = await findSubscriptionView(db, seller.context.partnerId, id)
    if (!row) throw new Error(`subscription ${id} not found`)
    return JSON.stringify(subscriptionResource(row, BASE, TIME_ZONE))
  }
  const page = async () => {
    const index = Math.floor(random.next() * all.length)
    const seller = all[index] as Seller
    const pages = Math.ceil((dataset.partners[index]?.subscriptions ?? 1) / 15)
    const offset = Math.floor(random.next() * pages) * 15
    await authenticate(db, seller)
    const { rows } = await listSubscriptionViews(db, seller.context.partnerId, {}, offset, 15)
    return JSON.stringify(rows.map((row) => subscriptionResource(row, BASE, TIME_ZONE)))
  }
  const quotation = async () => {
    const index = Math.floor(random.next() * all.length)
    const seller = all[index] as Seller
    const model = random.pick((dataset.partners[index] as Dataset['partners'][number]).models)
    const maxima = random.next() < 0.5 ? Math.round(model.defaultLmi * 0.009) : undefined
    await authenticate(db, seller)
    const quotes = await quoteSubscriptionPlans(db, seller.context, { modelId: model.id, maxima })
    return JSON.stringify({ plans: quotes.map(subscriptionQuoteResource) })
  }
  /** A contract; `rollBack` undoes it, so that its statements can be replayed as they were. */
  const contract = async (rollBack = false) => {
    const index = Math.floor(random.next() * all.length)
    const seller = all[index] as Seller
    const partner = dataset.partners[index] as Dataset['partners'][number]
    const body = {
      plan_id: random.pick(partner.plans).id,
      customer_id: random.pick(partner.customerIds),
      model_id: random.pick(partner.models).id,
      serial_number: String(100_000_000_000_000 + Math.floor(random.next() * 1e14)),
      is_used: random.next() < 0.15,
      metadata: { origin: 'pdv-1' },
    }
    await authenticate(db, seller)
    const undo = new Error('rolled back on purpose')
    try {
      const view = await db.transaction().execute(async (trx) => {
        const contracted = await contractSubscription(trx, seller.context, body, {
          now: new Date().toISOString(),
          timeZone: TIME_ZONE,
        })
        if (rollBack) throw undo
        return contracted
      })
      return JSON.stringify(subscriptionResource(view, BASE, TIME_ZONE))
    } catch (error) {
      if (error !== undo) throw error
      return ''
    }
  }

  return [
    { id: 'a', name: '(a) GET /subscriptions/{id}', call: read },
    { id: 'b', name: '(b) GET /subscriptions page of 15', call: page },
    { id: 'c', name: '(c) GET /quotation', call: quotation },
    { id: 'd', name: '(d) POST /subscriptions', call: () => contract(), replayed: () => contract(true) },
  ]
}

/** PostgreSQL (a): its statements as bare round trips, against its own target. */
function reportPostgres(read: Cost, bare: BareServerCost, roundTripUs: number): void {
  const ratio = TARGETS.postgres.ratio.a as number
  const budget = bare.plainUs / ratio
  const floor = bare.loggedUs + read.count * roundTripUs
  const verdict =
    floor > budget ? `: out of reach, the floor is ${(floor / budget).toFixed(2)} × the budget` : ''
  out()
  out(`PostgreSQL: one bare round trip costs ${roundTripUs.toFixed(1)} µs of client and backend CPU.`)
  out(
    `  (a) target ${ratio.toFixed(2)}: budget ${budget.toFixed(1)} µs; floor ${floor.toFixed(1)} µs (the logged bare`,
  )
  out(`  server + ${read.count} round trips)${verdict}.`)
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'amparo-ceiling-'))
  try {
    const file = join(dir, 'ceiling.sqlite')
    const config = loadConfig({ AMPARO_SQLITE_FILE: file })
    const setup = createDb(config.database)
    await migrateToLatest(setup)
    const { partners } = await loadDemo(setup, config, new Date().toISOString())
    await setup.destroy()
    const total = Number(args.subscriptions)
    out(`Seeding ${total.toLocaleString('en')} subscriptions with installments (2 demo partners)…`)
    const dataset = await seed({
      kind: 'sqlite',
      target: file,
      partners: partners.map((p, i) => ({
        id: p.id,
        gateway: p.gateway,
        subscriptions: i === 0 ? Math.ceil(total * 0.6) : Math.floor(total * 0.4),
      })),
      installments: true,
      log: () => {},
    })

    const db = createDb(config.database)
    const all = await sellers(db, dataset)
    const seconds = Number(args.seconds)
    const scenarios = scenariosOf(db, dataset, all)
    const costs: Cost[] = []
    for (const scenario of scenarios) {
      const serviceUs = await measure(seconds, scenario.call)
      const calls: Recorded[][] = []
      for (let i = 0; i < 200; i++) calls.push(await record(scenario.replayed ?? scenario.call))
      const statements = (calls[0] as Recorded[]).filter((s) => !/^(begin|commit|rollback)/i.test(s.sql))
      // Nothing recorded would make a floor of the bare server alone: the recorder missed the driver.
      if (statements.length === 0) throw new Error(`${scenario.name}: no statement recorded`)
      costs.push({
        scenario,
        serviceUs,
        statementsUs: replay(file, calls, seconds),
        count: statements.length,
      })
    }
    // The bare server answers one real resource, as the bench's baseline does.
    const owner = all[dataset.owner[0] as number] as Seller
    const row = await findSubscriptionView(db, owner.context.partnerId, dataset.firstId)
    await db.destroy()
    if (!row) throw new Error('no subscription to take the sample body from')
    const bodyFile = join(dir, 'body.json')
    writeFileSync(bodyFile, JSON.stringify(subscriptionResource(row, BASE, TIME_ZONE)))
    out('Measuring the bare server (plain, then with the request log), 50 connections…')
    const bare = await bareServerCost({ root: ROOT, dir, bodyFile, seconds: Number(args['http-seconds']) })
    report(costs, bare, seconds)
    if (args['pg-url']) {
      reportPostgres(costs[0] as Cost, bare, await pgRoundTripUs(args['pg-url'], seconds))
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
