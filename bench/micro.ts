// Micro-benchmarks behind the suggestions of docs/benchmarks.md: each measures a piece of the
// request path as it is in src/ against the proposed replacement, in this process, best of 5.
//   npx tsx bench/micro.ts [--rows 1000000] [--skip-list]
// Reads src/ only; writes nothing but a temporary SQLite file, deleted at the end.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import BetterSqlite3 from 'better-sqlite3'
import { jwtVerify } from 'jose'
import { type CompiledQuery, Kysely } from 'kysely'
import { loadConfig } from '../src/config.js'
import { createDb, type Database, type Db } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { sqliteDialect } from '../src/db/sqlite.js'
import { loadDemo } from '../src/demo/demo.js'
import { findActivePrincipal } from '../src/modules/auth/principal.repository.js'
import { TokenService, tokenAudience } from '../src/modules/auth/token.service.js'
import { installmentSchedule } from '../src/modules/subscriptions/schedule.js'
import {
  findSubscriptionView,
  listSubscriptionViews,
} from '../src/modules/subscriptions/subscription.repository.js'
import { addMonthsClamped, formatTimestamp } from '../src/shared/time.js'
import { seed } from './lib/seed.js'

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    'skip-list': { type: 'boolean', default: false },
  },
})

const out = (line = '') => process.stdout.write(`${line}\n`)

/** Best of `runs` timings of `iterations` calls, in µs per call. */
async function time(iterations: number, fn: (i: number) => unknown, runs = 5): Promise<number> {
  let best = Number.POSITIVE_INFINITY
  for (let r = 0; r < runs; r++) {
    const started = performance.now()
    for (let i = 0; i < iterations; i++) {
      const result = fn(i)
      if (result instanceof Promise) await result
    }
    best = Math.min(best, ((performance.now() - started) * 1000) / iterations)
  }
  return best
}

function row(name: string, before: number, after: number) {
  out(
    `  ${name.padEnd(58)} ${before.toFixed(2).padStart(9)} µs → ${after.toFixed(2).padStart(8)} µs  (×${(before / after).toFixed(1)})`,
  )
}

// ---------------------------------------------------------------- timestamps
// The prototype of src/shared/time.ts: the zone's UTC offset looked up with Intl once per 15-minute
// bucket, then plain arithmetic. It assumes every transition falls on a quarter hour, which is not
// so (St. John's changed at 00:01 until 2011); src/ checks both ends of each bucket instead.
const offsetCache = new Map<string, Map<number, number>>()
const partsFormatter = new Map<string, Intl.DateTimeFormat>()
function zoneOffsetMs(ms: number, zone: string): number {
  let byBucket = offsetCache.get(zone)
  if (!byBucket) {
    byBucket = new Map()
    offsetCache.set(zone, byBucket)
  }
  const bucket = Math.floor(ms / 900_000)
  let offset = byBucket.get(bucket)
  if (offset === undefined) {
    let f = partsFormatter.get(zone)
    if (!f) {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      })
      partsFormatter.set(zone, f)
    }
    const p: Record<string, number> = {}
    const at = bucket * 900_000
    for (const { type, value } of f.formatToParts(at)) p[type] = Number(value)
    offset = Date.UTC(p.year as number, (p.month as number) - 1, p.day, p.hour, p.minute, p.second) - at
    if (byBucket.size > 50_000) byBucket.clear()
    byBucket.set(bucket, offset)
  }
  return offset
}
const two = (n: number) => (n < 10 ? `0${n}` : String(n))
function formatTimestampFast(iso: string, zone: string): string {
  const ms = Date.parse(iso)
  const d = new Date(ms + zoneOffsetMs(ms, zone))
  return `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
}

// ---------------------------------------------------------------- calendar months
function addMonthsClampedFast(date: string, months: number): string {
  const total = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1 + months
  const year = Math.floor(total / 12)
  const month = total - year * 12
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  const day = Math.min(Number(date.slice(8, 10)), lastDay)
  return `${String(year).padStart(4, '0')}-${two(month + 1)}-${two(day)}`
}

async function pureFunctions() {
  out('Pure functions (per call)')
  const zones = [
    'America/Sao_Paulo',
    'America/New_York',
    'Europe/London',
    'Australia/Lord_Howe',
    'Asia/Kathmandu',
  ]
  // Equivalence first: random instants 1990–2060, and every quarter hour around 2020–2030 transitions.
  for (const zone of zones) {
    for (let i = 0; i < 20_000; i++) {
      const iso = new Date(631_152_000_000 + Math.floor(Math.random() * 2_208_988_800_000)).toISOString()
      if (formatTimestamp(iso, zone) !== formatTimestampFast(iso, zone))
        throw new Error(`differs: ${zone} ${iso}`)
    }
    for (let ms = Date.UTC(2020, 0, 1); ms < Date.UTC(2030, 0, 1); ms += 900_000 * 7 + 60_000) {
      const iso = new Date(ms).toISOString()
      if (formatTimestamp(iso, zone) !== formatTimestampFast(iso, zone))
        throw new Error(`differs: ${zone} ${iso}`)
    }
  }
  const instants = Array.from({ length: 1000 }, (_, i) =>
    new Date(Date.UTC(2025, 0, 1) + i * 3_600_017).toISOString(),
  )
  const zone = 'America/Sao_Paulo'
  row(
    'formatTimestamp (Intl formatToParts) → offset cache',
    await time(50_000, (i) => formatTimestamp(instants[i % 1000] as string, zone)),
    await time(50_000, (i) => formatTimestampFast(instants[i % 1000] as string, zone)),
  )
  const dates = Array.from({ length: 3000 }, (_, i) =>
    new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
  )
  for (const d of dates)
    for (let m = 0; m < 60; m++) {
      if (addMonthsClamped(d, m) !== addMonthsClampedFast(d, m)) throw new Error(`differs: ${d} + ${m}`)
    }
  row(
    'installment due dates, 12 × addMonthsClamped (luxon) → arithmetic',
    await time(5_000, (i) => {
      for (let m = 0; m < 12; m++) addMonthsClamped(dates[i % 3000] as string, m)
    }),
    await time(5_000, (i) => {
      for (let m = 0; m < 12; m++) addMonthsClampedFast(dates[i % 3000] as string, m)
    }),
  )
  // A 24-installment contract's rows as written before and after: in Node 20's V8 each property
  // added after a spread is slow, and flatMap far slower than a loop.
  const schedule = installmentSchedule('2026-11-22', 24, 1234)
  const now = new Date().toISOString()
  const columns = ['subscription_id', 'number', 'amount', 'due_date', 'status', 'failed_attempts']
  const valuesOf = (rows: Record<string, unknown>[]) => {
    const values: unknown[] = []
    for (const r of rows) for (const column of columns) values.push(r[column])
    return values
  }
  row(
    'contract rows, 24 installments: spreads + flatMap → written out + loop',
    await time(5_000, () => {
      const rows = schedule
        .map((i) => ({ ...i, status: 'pending', failed_attempts: 0, created_at: now }))
        .map((i) => ({ ...i, subscription_id: 1 }))
      return rows.flatMap((r) => columns.map((column) => (r as Record<string, unknown>)[column]))
    }),
    await time(5_000, () => {
      const rows = schedule
        .map(({ number, amount, due_date }) => ({
          number,
          amount,
          due_date,
          status: 'pending',
          failed_attempts: 0,
          created_at: now,
        }))
        .map((i) => ({ subscription_id: 1, ...i }))
      return valuesOf(rows)
    }),
  )
}

// ---------------------------------------------------------------- tokens
async function tokens() {
  out('Bearer token check (per call, 64 in flight)')
  const clock = { now: () => new Date() }
  const keys = [{ kid: 'k1', secret: 'bench-secret-0123456789abcdef0123456789' }]
  const service = new TokenService(keys, 3600, clock, tokenAudience('test'))
  const { token } = await service.issue({ kind: 'client', id: 1 }, 1)
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(keys[0]?.secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  )
  const cache = new Map<string, { sub: string; pid: number; exp: number }>()
  const batch = (fn: () => Promise<unknown>) => async () => {
    await Promise.all(Array.from({ length: 64 }, fn))
  }
  const perCall = async (fn: () => Promise<unknown>) => (await time(200, batch(fn))) / 64
  const current = await perCall(() => service.verify(token))
  row(
    'TokenService.verify → jose with a CryptoKey imported once',
    current,
    await perCall(() => jwtVerify(token, key, { algorithms: ['HS256'] })),
  )
  row(
    'TokenService.verify → cache of verified tokens (hit; exp re-checked)',
    current,
    await perCall(async () => {
      const hit = cache.get(token)
      if (hit && hit.exp * 1000 > Date.now()) return hit
      const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] })
      const claims = { sub: String(payload.sub), pid: Number(payload.pid), exp: Number(payload.exp) }
      cache.set(token, claims)
      return claims
    }),
  )
}

// ---------------------------------------------------------------- query building
/** A Kysely instance on an existing SQLite dialect that records the SQL of every query. */
function capturing(file: string) {
  let last: CompiledQuery | null = null
  const db = new Kysely<Database>({
    dialect: sqliteDialect(file),
    log: (event) => {
      last = event.query
    },
  })
  return { db, last: () => last as CompiledQuery | null }
}

async function queries(file: string, partnerId: number, subscriptionId: number) {
  out('Query building: Kysely builds and compiles the SQL of every call (per call, SQLite, warm cache)')
  const { db, last } = capturing(file)
  await findSubscriptionView(db as unknown as Db, partnerId, subscriptionId)
  const view = last() as CompiledQuery
  row(
    'findSubscriptionView → same SQL compiled once (executeQuery)',
    await time(20_000, () => findSubscriptionView(db as unknown as Db, partnerId, subscriptionId)),
    await time(20_000, () => db.executeQuery({ ...view, parameters: [partnerId, subscriptionId] })),
  )
  const subject = { kind: 'client' as const, id: 1 }
  await findActivePrincipal(db as unknown as Db, subject)
  const principal = last() as CompiledQuery
  row(
    'findActivePrincipal → same SQL compiled once',
    await time(20_000, () => findActivePrincipal(db as unknown as Db, subject)),
    await time(20_000, () => db.executeQuery({ ...principal })),
  )
  await db.destroy()
}

// ---------------------------------------------------------------- list at scale
async function list(file: string, small: { id: number; n: number }, large: { id: number; n: number }) {
  out(
    `Subscription list, SQLite, one call (ms): partner with ${small.n.toLocaleString('en')} vs ${large.n.toLocaleString('en')} subscriptions`,
  )
  const { db } = capturing(file)
  const raw = new BetterSqlite3(file)
  const ms = async (fn: () => unknown, runs = 3) => {
    let best = Number.POSITIVE_INFINITY
    for (let r = 0; r < runs; r++) {
      const started = performance.now()
      await fn()
      best = Math.min(best, performance.now() - started)
    }
    return best
  }
  const line = (name: string, a: number, b: number) =>
    out(`  ${name.padEnd(60)} ${a.toFixed(2).padStart(9)} ${b.toFixed(2).padStart(10)}`)
  out(`  ${''.padEnd(60)} ${'small'.padStart(9)} ${'large'.padStart(10)}`)
  const page = (p: { n: number }, where: 'first' | 'middle' | 'last') =>
    where === 'first' ? 1 : where === 'middle' ? Math.ceil(p.n / 30) : Math.ceil(p.n / 15)
  for (const where of ['first', 'middle', 'last'] as const) {
    const times = []
    for (const p of [small, large]) {
      times.push(
        await ms(() => listSubscriptionViews(db as unknown as Db, p.id, {}, (page(p, where) - 1) * 15, 15)),
      )
    }
    line(`listSubscriptionViews (counter + range), ${where} page`, times[0] as number, times[1] as number)
  }
  const count = raw.prepare('select count(*) as total from subscriptions as s where s.partner_id = ?')
  line(
    '  of which: count(*) of the partner',
    await ms(() => count.get(small.id)),
    await ms(() => count.get(large.id)),
  )
  const ids = raw.prepare(
    'select id from subscriptions where partner_id = ? order by id desc limit 15 offset ?',
  )
  line(
    '  deferred join: ids of the middle page only (covering index)',
    await ms(() => ids.all(small.id, (page(small, 'middle') - 1) * 15)),
    await ms(() => ids.all(large.id, (page(large, 'middle') - 1) * 15)),
  )
  // What the list did before migration 0006: count(*) plus an OFFSET page over the four joins.
  const byOffset = raw.prepare(
    `select s.*, p.name as plan_name, c.name as customer_name, m.name as model_name, b.name as brand_name
     from subscriptions s join plans p on p.id = s.plan_id join customers c on c.id = s.customer_id
     join models m on m.id = s.model_id join brands b on b.id = m.brand_id
     where s.partner_id = ? order by s.id desc limit 15 offset ?`,
  )
  for (const where of ['first', 'middle', 'last'] as const) {
    const run = (p: { id: number; n: number }) => () => {
      count.get(p.id)
      return byOffset.all(p.id, (page(p, where) - 1) * 15)
    }
    line(`before 0006: count(*) + OFFSET page, ${where} page`, await ms(run(small)), await ms(run(large)))
  }
  raw.close()
  await db.destroy()
}

async function main() {
  await pureFunctions()
  out()
  await tokens()
  out()
  const dir = mkdtempSync(join(tmpdir(), 'amparo-micro-'))
  try {
    const file = join(dir, 'micro.sqlite')
    const config = loadConfig({
      AMPARO_SQLITE_FILE: file,
      AMPARO_JWT_KEYS: 'k=0123456789abcdef0123456789abcdef',
    })
    const db = createDb(config.database)
    await migrateToLatest(db)
    const { partners } = await loadDemo(db, config, new Date().toISOString())
    await db.destroy()
    const [a, b] = partners as unknown as [{ id: number }, { id: number }]
    const rows = args['skip-list'] ? 1000 : Number(args.rows)
    out(`(seeding ${(1000 + rows).toLocaleString('en')} subscriptions for the query measurements…)`)
    const dataset = await seed({
      kind: 'sqlite',
      target: file,
      partners: [
        { id: a.id, gateway: 'external', subscriptions: 1000 },
        { id: b.id, gateway: 'own', subscriptions: rows },
      ],
      installments: false,
      log: () => {},
    })
    out()
    const ownerIndex = dataset.owner[0] as number
    await queries(file, dataset.partners[ownerIndex]?.id as number, dataset.firstId)
    if (!args['skip-list']) {
      out()
      await list(file, { id: a.id, n: 1000 }, { id: b.id, n: rows })
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
