import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'

// The bench dataset, written with plain SQL straight into a migrated database (never through the
// API): customers and subscriptions generated here in batched inserts inside transactions, their
// installments derived from the subscriptions by one set-based INSERT … SELECT per batch. Each
// subscription gets its partner's next `partner_seq` and the partners' counters are set at the end,
// as contracting does.

export type DbKind = 'sqlite' | 'postgres'

export interface SeedPartner {
  id: number
  gateway: 'external' | 'own'
  /** Subscriptions to create for this partner. */
  subscriptions: number
}

export interface PartnerData {
  id: number
  gateway: 'external' | 'own'
  subscriptions: number
  customerIds: number[]
  plans: { id: number; installments: number }[]
  models: { id: number; defaultLmi: number }[]
}

export interface Dataset {
  /** Seeded subscription ids are firstId..lastId, in partner order `owner[id - firstId]`. */
  firstId: number
  lastId: number
  owner: Uint8Array
  partners: PartnerData[]
  customers: number
  installments: number
  seconds: number
  engineVersion: string
}

type Row = unknown[]
type ColumnType = 'int' | 'text' | 'bool' | 'timestamptz' | 'date'
type Columns = [name: string, type: ColumnType][]

interface Sink {
  all<T>(sql: string, params?: unknown[]): Promise<T[]>
  exec(sql: string, params?: unknown[]): Promise<number>
  insert(table: string, columns: Columns, rows: Row[]): Promise<void>
  close(): Promise<void>
}

const BATCH = 10_000

/** Deterministic pseudo-random numbers (mulberry32), so two runs seed the same data. */
export function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick<T>(items: readonly T[]): T {
      return items[Math.floor(next() * items.length)] as T
    },
    digits: (n: number) => Array.from({ length: n }, () => Math.floor(next() * 10)).join(''),
  }
}

/** A valid CPF (11 digits, both check digits right) for a 9-digit base number. */
export function cpf(base: number): string {
  const digits = String(base % 1_000_000_000)
    .padStart(9, '0')
    .split('')
    .map(Number)
  const check = (length: number) => {
    let sum = 0
    for (let i = 0; i < length; i++) sum += (digits[i] as number) * (length + 1 - i)
    const rest = (sum * 10) % 11
    return rest === 10 ? 0 : rest
  }
  digits.push(check(9))
  digits.push(check(10))
  return digits.join('')
}

const halfUp = (cents: number, bp: number) => Math.floor((cents * bp + 5000) / 10_000)

/** `name:type` words, text by default. */
const columns = (spec: string): Columns =>
  spec
    .split(/\s+/)
    .map((word) => word.split(':') as [string, ColumnType])
    .map(([n, t]) => [n, t ?? 'text'])
const CUSTOMER_COLUMNS = columns(
  `id:int partner_id:int name document document_kind email phone street number:int complement zipcode
   neighborhood city state created_at:timestamptz`.trim(),
)
const SUBSCRIPTION_COLUMNS = columns(
  `id:int partner_id:int partner_seq:int customer_id:int plan_id:int model_id:int store_id:int serial_number
   second_serial_number is_used:bool lmi:int monthly_premium:int franchise:int installments_count:int status
   origin card_token card_brand card_last4 canceled_at:timestamptz cancel_reason created_at:timestamptz`.trim(),
)

const FIRST_NAMES = ['Maria', 'José', 'Ana', 'João', 'Francisca', 'Antônio', 'Adriana', 'Carlos', 'Juliana']
const LAST_NAMES = ['da Silva', 'dos Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Lima']
const CITIES = [
  ['São Paulo', 'SP'],
  ['Rio de Janeiro', 'RJ'],
  ['Belo Horizonte', 'MG'],
  ['Curitiba', 'PR'],
  ['Recife', 'PE'],
] as const

export interface SeedOptions {
  kind: DbKind
  /** SQLite file or PostgreSQL URL. */
  target: string
  partners: SeedPartner[]
  /** Installments for every subscription (off for the 1M-row scale check, which only lists). */
  installments: boolean
  log: (line: string) => void
}

export async function seed(options: SeedOptions): Promise<Dataset> {
  const started = performance.now()
  const sink = options.kind === 'sqlite' ? sqliteSink(options.target) : await postgresSink(options.target)
  try {
    return await seedWith(sink, options, started)
  } finally {
    await sink.close()
  }
}

async function seedWith(sink: Sink, options: SeedOptions, started: number): Promise<Dataset> {
  const random = prng(20_261_121)
  const now = Date.now()
  const today = new Date(now).toISOString().slice(0, 10)
  const bool = options.kind === 'sqlite' ? '1' : 'true'

  const partners: PartnerData[] = []
  for (const p of options.partners) {
    const plans = await sink.all<{ id: number; installments: number }>(
      `select id, installments from plans where partner_id = ${p.id} and kind = 'subscription' and active = ${bool} order by id`,
    )
    const models = await sink.all<{ id: number; default_lmi: number }>(
      `select m.id, m.default_lmi from partner_models pm join models m on m.id = pm.model_id
       where pm.partner_id = ${p.id} and m.active = ${bool} and pm.unavailable = ${bool === '1' ? '0' : 'false'} order by m.id`,
    )
    if (plans.length === 0 || models.length === 0) throw new Error(`partner ${p.id} has no plan or no model`)
    partners.push({
      id: p.id,
      gateway: p.gateway,
      subscriptions: p.subscriptions,
      customerIds: [],
      plans: plans.map((r) => ({ id: Number(r.id), installments: Number(r.installments) })),
      models: models.map((r) => ({ id: Number(r.id), defaultLmi: Number(r.default_lmi) })),
    })
  }
  const rates = new Map<number, { monthly: number; franchise: number }>()
  for (const r of await sink.all<{ id: number; m: number; f: number }>(
    `select id, monthly_rate_bp as m, franchise_rate_bp as f from plans where kind = 'subscription'`,
  )) {
    rates.set(Number(r.id), { monthly: Number(r.m), franchise: Number(r.f) })
  }
  const stores = new Map<number, number>()
  for (const r of await sink.all<{ id: number; partner_id: number }>(
    `select id, partner_id from shopkeepers where matrix = ${bool}`,
  )) {
    stores.set(Number(r.partner_id), Number(r.id))
  }

  // Customers: about one for every three subscriptions, each partner's ids contiguous.
  let customerId = Number((await sink.all<{ m: number }>('select max(id) as m from customers'))[0]?.m ?? 0)
  let customers = 0
  const customerEpoch = now - 800 * 86_400_000
  for (const [index, partner] of partners.entries()) {
    const count = Math.min(50_000, Math.max(20, Math.ceil(partner.subscriptions / 3)))
    let rows: Row[] = []
    for (let n = 0; n < count; n++) {
      customerId += 1
      partner.customerIds.push(customerId)
      const [city, state] = random.pick(CITIES)
      const withAddress = random.next() < 0.8
      rows.push([
        customerId,
        partner.id,
        `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`,
        cpf(100_000_000 * (index + 1) + n * 7 + 1),
        'cpf',
        `cliente${n}.p${partner.id}@bench.example`,
        `119${random.digits(8)}`,
        withAddress ? 'Avenida Paulista' : null,
        withAddress ? random.int(1, 3000) : null,
        withAddress && random.next() < 0.3 ? `Apto ${random.int(1, 300)}` : null,
        withAddress ? random.digits(8) : null,
        withAddress ? 'Centro' : null,
        withAddress ? city : null,
        withAddress ? state : null,
        new Date(customerEpoch + n * 1000).toISOString(),
      ])
      if (rows.length === BATCH) {
        await sink.insert('customers', CUSTOMER_COLUMNS, rows)
        rows = []
      }
    }
    if (rows.length) await sink.insert('customers', CUSTOMER_COLUMNS, rows)
    customers += count
  }
  options.log(`  ${customers.toLocaleString('en')} customers`)

  // Subscriptions, the partners interleaved at random (exact counts), oldest first over 2 years.
  const total = partners.reduce((sum, p) => sum + p.subscriptions, 0)
  const remaining = partners.map((p) => p.subscriptions)
  let left = total
  const firstId =
    Number((await sink.all<{ m: number }>('select max(id) as m from subscriptions'))[0]?.m ?? 0) + 1
  const owner = new Uint8Array(total)
  // Each partner's sequence continues from its counter, as contracting through the API would.
  const seqs: number[] = []
  for (const partner of partners) {
    const counter = await sink.all<{ total: number }>(
      `select total from partner_subscription_counts where partner_id = ${partner.id}`,
    )
    seqs.push(Number(counter[0]?.total ?? 0))
  }
  const span = 730 * 86_400_000
  const epoch = now - span - 86_400_000
  let rows: Row[] = []
  const flush = async (lastId: number) => {
    if (rows.length === 0) return
    const from = rows[0]?.[0] as number
    await sink.insert('subscriptions', SUBSCRIPTION_COLUMNS, rows)
    rows = []
    if (options.installments) await insertInstallments(sink, options.kind, from, lastId, today)
  }
  for (let i = 0; i < total; i++) {
    let r = Math.floor(random.next() * left)
    let index = 0
    while (r >= (remaining[index] as number)) r -= remaining[index++] as number
    remaining[index] = (remaining[index] as number) - 1
    left -= 1
    owner[i] = index
    const partner = partners[index] as PartnerData
    const id = firstId + i
    seqs[index] = (seqs[index] as number) + 1
    const plan = random.pick(partner.plans)
    const rate = rates.get(plan.id) as { monthly: number; franchise: number }
    const model = random.pick(partner.models)
    const lmi =
      random.next() < 0.7 ? model.defaultLmi : Math.round(model.defaultLmi * (0.6 + random.next() * 0.4))
    const roll = random.next()
    const status = roll < 0.7 ? 'pago' : roll < 0.9 ? 'pending' : 'canceled'
    const created = new Date(epoch + Math.floor((i / total) * span) + random.int(0, 3_600_000))
    // Day of month at most 28, so that "+ n months" needs no clamping in either database.
    if (created.getUTCDate() > 28) created.setUTCDate(28)
    const card = partner.gateway === 'own' && status !== 'pending'
    rows.push([
      id,
      partner.id,
      seqs[index],
      random.pick(partner.customerIds),
      plan.id,
      model.id,
      random.next() < 0.5 ? (stores.get(partner.id) ?? null) : null,
      random.digits(15),
      random.next() < 0.2 ? random.digits(15) : null,
      random.next() < 0.15,
      lmi,
      halfUp(lmi, rate.monthly),
      halfUp(lmi, rate.franchise),
      plan.installments,
      status,
      random.next() < 0.5 ? `pdv-${random.int(1, 40)}` : null,
      card ? `tok_bench_${random.digits(16)}` : null,
      card ? 'visa' : null,
      card ? '1111' : null,
      status === 'canceled' ? new Date(created.getTime() + 40 * 86_400_000).toISOString() : null,
      status === 'canceled' ? 'Cliente desistiu da proteção.' : null,
      created.toISOString(),
    ])
    if (rows.length === BATCH) await flush(id)
    if ((i + 1) % 200_000 === 0) options.log(`  ${(i + 1).toLocaleString('en')} subscriptions…`)
  }
  await flush(firstId + total - 1)
  for (const [index, partner] of partners.entries()) {
    if (partner.subscriptions === 0) continue
    await sink.exec(
      `insert into partner_subscription_counts (partner_id, total) values (${partner.id}, ${seqs[index]})
       on conflict (partner_id) do update set total = excluded.total`,
    )
  }
  options.log(`  ${total.toLocaleString('en')} subscriptions`)

  if (options.kind === 'postgres') {
    for (const table of ['customers', 'subscriptions']) {
      await sink.exec(
        `select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`,
      )
    }
    // The state autovacuum reaches on its own a little later: statistics and visibility map.
    await sink.exec('vacuum analyze')
  } else {
    await sink.exec('pragma wal_checkpoint(truncate)')
  }
  const installments = Number(
    (await sink.all<{ n: number }>('select count(*) as n from installments'))[0]?.n ?? 0,
  )
  const engineVersion =
    options.kind === 'sqlite'
      ? `SQLite ${(await sink.all<{ v: string }>('select sqlite_version() as v'))[0]?.v}`
      : String((await sink.all<{ v: string }>('select version() as v'))[0]?.v).split(' on ')[0]
  return {
    firstId,
    lastId: firstId + total - 1,
    owner,
    partners,
    customers,
    installments,
    seconds: (performance.now() - started) / 1000,
    engineVersion: engineVersion ?? options.kind,
  }
}

/**
 * Installment k of subscription s is due k−1 months after its contracting day. A paid ("pago")
 * subscription has paid every installment already due; a canceled one paid installment 1 and had
 * the rest canceled; a pending one has paid nothing.
 */
async function insertInstallments(sink: Sink, kind: DbKind, fromId: number, toId: number, today: string) {
  const columns = `subscription_id, number, amount, due_date, status, paid_at, failed_attempts,
    next_attempt_on, locked_until, created_at`
  const paid = `(x.sst = 'pago' and x.due <= '${today}') or (x.sst = 'canceled' and x.k = 1)`
  const open = `x.sst = 'pending' or (x.sst = 'pago' and x.due > '${today}')`
  if (kind === 'sqlite') {
    await sink.exec(
      `insert into installments (${columns})
       with recursive n(k) as (select 1 union all select k + 1 from n where k < 60)
       select x.sid, x.k, x.amount, x.due,
         case when ${paid} then 'paid' when ${open} then 'pending' else 'canceled' end,
         case when ${paid} then x.due || 'T15:00:00.000Z' end,
         0,
         case when ${open} then x.due end,
         null, x.created
       from (
         select s.id as sid, n.k as k, s.monthly_premium as amount, s.status as sst, s.created_at as created,
           date(substr(s.created_at, 1, 10), '+' || (n.k - 1) || ' months') as due
         from subscriptions s cross join n
         where s.id between ? and ? and n.k <= s.installments_count
       ) x
       order by x.sid, x.k`,
      [fromId, toId],
    )
  } else {
    await sink.exec(
      `insert into installments (${columns})
       select x.sid, x.k, x.amount, x.due,
         case when ${paid} then 'paid' when ${open} then 'pending' else 'canceled' end,
         case when ${paid} then (x.due + time '15:00') at time zone 'UTC' end,
         0,
         case when ${open} then x.due end,
         null, x.created
       from (
         select s.id as sid, g.k, s.monthly_premium as amount, s.status as sst, s.created_at as created,
           ((s.created_at at time zone 'UTC')::date + make_interval(months => g.k - 1))::date as due
         from subscriptions s cross join lateral generate_series(1, s.installments_count) as g(k)
         where s.id between $1 and $2
       ) x
       order by x.sid, x.k`,
      [fromId, toId],
    )
  }
}

function sqliteSink(file: string): Sink {
  const db = new BetterSqlite3(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = OFF')
  db.pragma('foreign_keys = OFF')
  const statements = new Map<string, BetterSqlite3.Statement>()
  return {
    async all<T>(sql: string, params: unknown[] = []) {
      return db.prepare(sql).all(...params) as T[]
    },
    async exec(sql: string, params: unknown[] = []) {
      const stmt = db.prepare(sql)
      if (stmt.reader) {
        stmt.all(...params)
        return 0
      }
      return stmt.run(...params).changes
    },
    async insert(table, columns, rows) {
      const sql = `insert into ${table} (${columns.map(([c]) => c).join(', ')}) values (${columns.map(() => '?').join(', ')})`
      let stmt = statements.get(sql)
      if (!stmt) {
        stmt = db.prepare(sql)
        statements.set(sql, stmt)
      }
      const insert = stmt
      db.transaction(() => {
        for (const row of rows) insert.run(...row.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)))
      })()
    },
    async close() {
      db.close()
    },
  }
}

async function postgresSink(url: string): Promise<Sink> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  return {
    async all<T>(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rows as T[]
    },
    async exec(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rowCount ?? 0
    },
    async insert(table, columns, rows) {
      // One statement per batch: each column travels as one array parameter, unnested server-side.
      const arrays = columns.map((_, i) => rows.map((row) => row[i]))
      const unnest = columns.map(([, type], i) => `$${i + 1}::${type === 'int' ? 'integer' : type}[]`)
      await client.query(
        `insert into ${table} (${columns.map(([c]) => c).join(', ')}) select * from unnest(${unnest.join(', ')})`,
        arrays,
      )
    },
    async close() {
      await client.end()
    },
  }
}

/** Creates a fresh PostgreSQL database; returns its URL and a function that drops it. */
export async function createPostgresDatabase(adminUrl: string, name: string) {
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  await admin(`create database ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () => admin(`drop database if exists ${name} with (force)`),
  }
}
