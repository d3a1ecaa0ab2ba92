import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { createDb, type Db } from '../src/db/database.js'
import { runJobsOnce } from '../src/worker/worker.js'
import { buildCheckedApp } from './helpers/test-app.js'
import { interleaving, withPlugin } from './helpers/test-db.js'
import {
  annualBody,
  clock,
  createWorld,
  customerBody,
  type Json,
  type Method,
  type Res,
  shopkeeperBody,
  subscriptionBody,
  VISA,
  type World,
} from './helpers/world/security.js'

// Every write a partner can make, sent at once through two connections to one database: what an
// `amparo worker` or a second API process on the same SQLite file does to the API. SQLite lets one
// connection write at a time and refuses a transaction whose snapshot another one has overtaken
// (SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT); none of that may reach the partner as a 5xx. On PostgreSQL
// the same requests run through two pools.

const dir = mkdtempSync(join(tmpdir(), 'amparo-writers-'))
let world: World
let second: Db
let apps: [App, App]
const N = 12

// Not useTestApp: two apps over two interleaving connections to one database, built here.
beforeAll(async () => {
  world = await createWorld({ sqliteFile: join(dir, 'amparo.sqlite') })
  // Both connections yield between statements, so their transactions stay open side by side: one
  // overtakes the other's snapshot, or holds the write lock the other one needs.
  second = createDb(world.ctx.config.database)
  const app = (db: Db) =>
    buildCheckedApp({ config: world.ctx.config, db: withPlugin(db, interleaving), clock, logger: false })
  apps = [await app(world.db), await app(second)]
})

afterAll(async () => {
  for (const app of apps ?? []) await app.close()
  await second?.destroy()
  await world?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The same kind of request N times at once, alternating between the two connections. */
function together(
  method: Method,
  url: (i: number) => string,
  token: string,
  body: (i: number) => Json | undefined,
  headers: (i: number) => Record<string, string> = () => ({}),
) {
  return Promise.all(
    Array.from({ length: N }, (_, i) => {
      const payload = body(i)
      return (apps[i % 2] as App).inject({
        method,
        url: url(i),
        headers: { authorization: `Bearer ${token}`, ...headers(i) },
        ...(payload === undefined ? {} : { payload }),
      })
    }),
  )
}

function expectAll(responses: Res[], status: number) {
  const statuses = responses.map((r) => (r.statusCode === status ? status : `${r.statusCode} ${r.body}`))
  expect(statuses).toEqual(responses.map(() => status))
}

describe('writes through two connections at once', () => {
  it('contracts every subscription, each numbered once in its partner’s list', async () => {
    const p = world.a.external
    const responses = await together(
      'POST',
      () => '/subscriptions',
      p.token,
      () => subscriptionBody(p),
    )
    expectAll(responses, 201)
    const ids = responses.map((r) => r.json().id as number)
    const rows = await world.db
      .selectFrom('subscriptions')
      .select(['id', 'partner_seq'])
      .where('id', 'in', ids)
      .execute()
    expect(rows).toHaveLength(N)
    expect(new Set(rows.map((r) => r.partner_seq)).size).toBe(N)
    const list = await world.ok('GET', `/subscriptions?per_page=${N}`, p.token)
    expect((list.data as { id: number }[]).map((s) => s.id).sort()).toEqual([...ids].sort())
  })

  it('contracts every subscription sent with an Idempotency-Key, and replays each', async () => {
    const p = world.a.external
    const key = (i: number) => ({ 'idempotency-key': `writers-${i}` })
    const bodies = Array.from({ length: N }, () => subscriptionBody(p))
    const send = () =>
      together(
        'POST',
        () => '/subscriptions',
        p.token,
        (i) => bodies[i],
        key,
      )
    const first = await send()
    expectAll(first, 201)
    const again = await send()
    expectAll(again, 201)
    expect(again.map((r) => r.json().id)).toEqual(first.map((r) => r.json().id))
  })

  it('charges the card of every subscription once', async () => {
    const p = world.a.own
    const ids: number[] = []
    for (let i = 0; i < N; i++)
      ids.push((await world.ok('POST', '/subscriptions', p.token, subscriptionBody(p))).id as number)
    const responses = await together(
      'POST',
      (i) => `/subscriptions/${ids[i]}/payment`,
      p.token,
      () => ({ creditCard: { number: VISA, expiry: '1230', cvv: '123' } }),
    )
    expectAll(responses, 200)
    const paid = await world.db.selectFrom('subscriptions').select('status').where('id', 'in', ids).execute()
    expect(paid.map((s) => s.status)).toEqual(ids.map(() => 'pago'))
  })

  it('contracts every annual plan', async () => {
    const p = world.b.own
    const responses = await together(
      'POST',
      () => '/annual-plans',
      p.token,
      () => annualBody(p),
    )
    expectAll(responses, 201)
    expect(new Set(responses.map((r) => r.json().id)).size).toBe(N)
  })

  it('registers every customer and every store', async () => {
    const p = world.a.own
    expectAll(
      await together(
        'POST',
        () => '/customers',
        p.token,
        () => customerBody(),
      ),
      201,
    )
    expectAll(
      await together(
        'POST',
        () => '/shopkeepers',
        p.token,
        () => shopkeeperBody(),
      ),
      201,
    )
  })

  it('charges the card of every annual plan once', async () => {
    const p = world.b.own
    const plans: number[] = []
    for (let i = 0; i < N; i++)
      plans.push((await world.ok('POST', '/annual-plans', p.token, annualBody(p))).id as number)
    expectAll(
      await together(
        'POST',
        (i) => `/annual-plans/${plans[i]}/payment`,
        p.token,
        () => ({ card_number: VISA, card_holder: 'MARIA', card_expiry: '12/30', card_cvv: '123' }),
      ),
      200,
    )
  })

  it('notifies, requests and confirms the cancellation of every annual plan', async () => {
    const p = world.b.external
    const plans: number[] = []
    for (let i = 0; i < N; i++)
      plans.push((await world.ok('POST', '/annual-plans', p.token, annualBody(p))).id as number)
    const plan = (i: number) => plans[i] as number
    expectAll(
      await together(
        'POST',
        (i) => `/annual-plans/${plan(i)}/notify-payment`,
        p.token,
        () => undefined,
      ),
      200,
    )
    const requested = await together(
      'PUT',
      (i) => `/annual-plans/${plan(i)}/cancellation`,
      p.token,
      () => ({}),
    )
    expectAll(requested, 200)
    const protocols = requested.map((r) => r.json().protocol as string)
    expectAll(
      await together(
        'POST',
        (i) => `/annual-plans/${plan(i)}/cancellation/${protocols[i]}`,
        p.token,
        () => undefined,
      ),
      200,
    )
  })
})

// SQLite only: PostgreSQL has no database-wide write lock (its writers wait on row locks only).
describe.skipIf(Boolean(process.env.DATABASE_URL))(
  'a worker round while another connection holds the write lock',
  () => {
    it('waits for it without stopping the event loop, and completes every job', async () => {
      // A write waiting in SQLite's busy handler sleeps synchronously: the event loop, and with it
      // this process's other connection, would stop (5 s, then SQLITE_BUSY).
      let ticks = 0
      const ticker = setInterval(() => {
        ticks += 1
      }, 5)
      let release = () => {}
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      const writer = second.transaction().execute(async (trx) => {
        await trx.updateTable('partners').set({ name: 'Parceiro' }).where('id', '=', -1).execute()
        await sql`insert into idempotency_keys (partner_id, key, fingerprint, created_at, expires_at)
        values (${world.a.external.partnerId}, 'held', 'x', '2000-01-01T00:00:00.000Z', '2000-01-02T00:00:00.000Z')`.execute(
          trx,
        )
        await held
      })
      try {
        const round = runJobsOnce({
          db: world.db,
          clock,
          timeZone: world.ctx.config.timeZone,
          gateway: null,
        })
        setTimeout(release, 300)
        const run = await round
        // The purge ran after the writer committed: it saw (and removed) the expired key it wrote.
        expect(run.idempotency.purged).toBeGreaterThanOrEqual(1)
        expect(ticks).toBeGreaterThan(10)
      } finally {
        release()
        await writer
        clearInterval(ticker)
      }
    })
  },
)

describe('the retry is not bypassed', () => {
  // A plain `db.transaction()` would bring the 503s and 500s above back for the route that uses it.
  it('opens every transaction of src/ through retryingTransaction', () => {
    const plain = readdirSync('src', { recursive: true, encoding: 'utf8' })
      .filter(
        (file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== join('db', 'transaction.ts'),
      )
      .filter((file) => /\.transaction\(\)/.test(readFileSync(join('src', file), 'utf8')))
    expect(plain).toEqual([])
  })
})
