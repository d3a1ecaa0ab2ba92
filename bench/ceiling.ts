// What the service's own work costs with no HTTP, no framework and no logging: the upper bound
// any server built on it could reach on one core, next to what the ratios ask for.
//   npx tsx bench/ceiling.ts [--subscriptions 100000] [--baseline 55000] [--seconds 3]
// Seeds a temporary SQLite file like `npm run bench` (the same seed), then calls the functions
// the routes call, in this process, one at a time. Writes nothing outside its temporary folder.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
import { type Dataset, prng, seed } from './lib/seed.js'

const { values: args } = parseArgs({
  options: {
    subscriptions: { type: 'string', default: '100000' },
    baseline: { type: 'string', default: '55000' },
    seconds: { type: 'string', default: '3' },
  },
})
const out = (line = '') => process.stdout.write(`${line}\n`)
const BASE = 'http://127.0.0.1'
const TIME_ZONE = 'America/Sao_Paulo'

/** Calls `fn` for `seconds` after a one-second warm-up; µs per call. */
async function measure(seconds: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const run = async (ms: number) => {
    const started = performance.now()
    let calls = 0
    while (performance.now() - started < ms) await fn(calls++)
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
    const random = prng(7)
    const seconds = Number(args.seconds)
    const ownerOf = (id: number) => dataset.owner[id - dataset.firstId] as number

    const read = await measure(seconds, async () => {
      const id = dataset.firstId + Math.floor(random.next() * (dataset.lastId - dataset.firstId + 1))
      const seller = all[ownerOf(id)] as Seller
      await authenticate(db, seller)
      const row = await findSubscriptionView(db, seller.context.partnerId, id)
      if (!row) throw new Error(`subscription ${id} not found`)
      return JSON.stringify(subscriptionResource(row, BASE, TIME_ZONE))
    })
    const page = await measure(seconds, async () => {
      const index = Math.floor(random.next() * all.length)
      const seller = all[index] as Seller
      const pages = Math.ceil((dataset.partners[index]?.subscriptions ?? 1) / 15)
      const offset = Math.floor(random.next() * pages) * 15
      await authenticate(db, seller)
      const { rows } = await listSubscriptionViews(db, seller.context.partnerId, {}, offset, 15)
      return JSON.stringify(rows.map((row) => subscriptionResource(row, BASE, TIME_ZONE)))
    })
    const quotation = await measure(seconds, async () => {
      const index = Math.floor(random.next() * all.length)
      const seller = all[index] as Seller
      const model = random.pick((dataset.partners[index] as Dataset['partners'][number]).models)
      const maxima = random.next() < 0.5 ? Math.round(model.defaultLmi * 0.009) : undefined
      await authenticate(db, seller)
      const quotes = await quoteSubscriptionPlans(db, seller.context, { modelId: model.id, maxima })
      return JSON.stringify({ plans: quotes.map(subscriptionQuoteResource) })
    })
    const contract = await measure(seconds, async () => {
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
      const view = await db.transaction().execute((trx) =>
        contractSubscription(trx, seller.context, body, {
          now: new Date().toISOString(),
          timeZone: TIME_ZONE,
        }),
      )
      return JSON.stringify(subscriptionResource(view, BASE, TIME_ZONE))
    })
    await db.destroy()

    const baseline = Number(args.baseline)
    out()
    out(`The service's own work per request: principal lookup, queries, mapping, JSON (no HTTP, no`)
    out(`framework, no logging), SQLite, one call at a time, ${seconds} s each after 1 s of warm-up.`)
    out(`Targets as req/s: the issue's ratio × a baseline of ${baseline.toLocaleString('en')} req/s.`)
    out()
    out(
      `  ${'scenario'.padEnd(34)} ${'µs/call'.padStart(8)} ${'ceiling/s'.padStart(10)} ${'target/s'.padStart(9)}`,
    )
    for (const [name, us, ratio] of [
      ['(a) GET /subscriptions/{id}', read, 0.5],
      ['(b) GET /subscriptions page of 15', page, 0.35],
      ['(c) GET /quotation', quotation, 0.5],
      ['(d) POST /subscriptions', contract, 0.2],
    ] as const) {
      const ceiling = 1e6 / us
      const target = ratio * baseline
      const verdict = ceiling < target ? '  below the target before any HTTP' : ''
      out(
        `  ${name.padEnd(34)} ${us.toFixed(1).padStart(8)} ${Math.round(ceiling).toLocaleString('en').padStart(10)} ${Math.round(target).toLocaleString('en').padStart(9)}${verdict}`,
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
