import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { InsertQueryNode, type KyselyPlugin, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { run } from '../src/cli/program.js'
import { createDb, type Db } from '../src/db/database.js'
import { retryingTransaction } from '../src/db/transaction.js'
import type { GatewayLabel, PaymentGateway } from '../src/modules/payments/payment-gateway.js'
import { SandboxGateway } from '../src/modules/payments/sandbox-gateway.js'
import { addDays, type Clock, formatDate } from '../src/shared/time.js'
import { expirePendingSubscriptions } from '../src/worker/pending-expiry.job.js'
import { type RecurrenceResult, runRecurrence } from '../src/worker/recurrence.job.js'
import { sandboxWith } from './helpers/gateways.js'
import { buildCheckedApp } from './helpers/test-app.js'
import { createTestDatabase, withPlugin } from './helpers/test-db.js'
import {
  bearer,
  createCustomer,
  ESSENCIAL_24X,
  login,
  partnerWithToken,
  seedCatalog,
  seedPlan,
  type TestPartner,
} from './helpers/world.js'

// Every describe has its own database: SQLite in a file (the CLI and the second worker open their
// own connections to it), or a fresh PostgreSQL schema when DATABASE_URL is set.
const dir = mkdtempSync(join(tmpdir(), 'amparo-worker-'))
// Not useTestApp: each describe builds a world of its own (createWorld below), on a file the worker process opens.
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const TZ = 'America/Sao_Paulo'
/** Wall-clock time in São Paulo (UTC−3 all year) as an instant. */
const at = (date: string, time = '12:00') => new Date(`${date}T${time}:00-03:00`)

class FakeClock implements Clock {
  constructor(public current: Date) {}
  now() {
    return this.current
  }
}

interface Charge {
  token: string
  reference: string
  /** Local day of the charge. */
  day: string
}

/** The sandbox, recording every token charge; an optional random delay interleaves workers. */
class RecordingGateway implements PaymentGateway {
  readonly charges: Charge[] = []
  private readonly sandbox = new SandboxGateway()
  constructor(
    private readonly clock: Clock,
    private readonly maxDelayMs = 0,
  ) {}
  createCustomer: PaymentGateway['createCustomer'] = (...args) => this.sandbox.createCustomer(...args)
  saveCard: PaymentGateway['saveCard'] = (...args) => this.sandbox.saveCard(...args)
  chargeCard: PaymentGateway['chargeCard'] = (...args) => this.sandbox.chargeCard(...args)
  detachCard: PaymentGateway['detachCard'] = (...args) => this.sandbox.detachCard(...args)
  verifyCard: PaymentGateway['verifyCard'] = (...args) => this.sandbox.verifyCard(...args)
  refund: PaymentGateway['refund'] = (...args) => this.sandbox.refund(...args)
  createPix: PaymentGateway['createPix'] = (...args) => this.sandbox.createPix(...args)
  createBoleto: PaymentGateway['createBoleto'] = (...args) => this.sandbox.createBoleto(...args)
  async chargeSaved(
    saved: { customerId: string; token: string },
    amount: number,
    reference: string,
    label: GatewayLabel,
  ) {
    this.charges.push({ token: saved.token, reference, day: formatDate(this.clock.now(), TZ) })
    if (this.maxDelayMs) await sleep(Math.random() * this.maxDelayMs)
    return this.sandbox.chargeSaved(saved, amount, reference, label)
  }
}

interface Seller {
  partner: TestPartner
  partnerId: number
  /** Issued at the world's clock: log in again after moving it past the token's lifetime. */
  token: string
  planId: number
  customerId: number
  modelId: number
}

/** A database with an app on a fake clock, and a seller of each gateway mode. */
async function createWorld(name: string) {
  const database = await createTestDatabase({ sqliteFile: join(dir, `${name}.sqlite`) })
  const clock = new FakeClock(at('2026-11-21'))
  const app = await buildCheckedApp({ config: database.config, db: database.db, clock, logger: false })
  const { model } = await seedCatalog(database.db)
  const modelId = model('Galaxy S25').id
  const seller = (gateway: 'own' | 'external') => createSeller(database.db, app, gateway, modelId)
  const world = { ...database, app, clock, own: await seller('own'), external: await seller('external') }
  return { ...world, seller, close: () => app.close().then(() => database.drop()) }
}
type World = Awaited<ReturnType<typeof createWorld>>

async function createSeller(db: Db, app: App, gateway: 'own' | 'external', modelId: number): Promise<Seller> {
  const { partner, token } = await partnerWithToken(app, db, gateway)
  const plan = await seedPlan(
    db,
    partner.id,
    { ...ESSENCIAL_24X, installments: 3 },
    '2026-11-01T00:00:00.000Z',
  )
  const customer = await createCustomer(app, token)
  return { partner, partnerId: partner.id, token, planId: plan.id, customerId: customer.id, modelId }
}

/** Moves the world's clock; the sellers log in again, since their tokens expire on that clock. */
async function setClock(world: World, instant: Date) {
  world.clock.current = instant
  for (const seller of [world.own, world.external]) seller.token = await login(world.app, seller.partner)
}

/** Contracts through the API at the world's clock; `pending`, installments due monthly from today. */
async function contract(world: World, seller: Seller): Promise<number> {
  const response = await world.app.inject({
    method: 'POST',
    url: '/subscriptions',
    headers: bearer(seller.token),
    payload: { plan_id: seller.planId, customer_id: seller.customerId, model_id: seller.modelId },
  })
  expect(response.statusCode, response.body).toBe(201)
  return response.json().id
}

const APPROVES = '4111111111111111'
/** Approves the first charge and declines every later one: the recurrence's failure path. */
const DECLINES_LATER = '4000000000000341'
const DECLINED = '4000000000000002'

/** Pays installment 1 by card through the API; answers the status and the token kept for the recurrence. */
async function payByCard(world: World, seller: Seller, subscriptionId: number, number: string) {
  const response = await world.app.inject({
    method: 'POST',
    url: `/subscriptions/${subscriptionId}/payment`,
    headers: bearer(seller.token),
    payload: { creditCard: { number, expiry: '1230', cvv: '123' } },
  })
  const row = await world.db
    .selectFrom('subscriptions')
    .select('card_token')
    .where('id', '=', subscriptionId)
    .executeTakeFirstOrThrow()
  return { status: response.statusCode, token: row.card_token }
}

/** Installment 1 paid by card (own gateway); the token the recurrence will charge. */
async function activate(world: World, seller: Seller, subscriptionId: number, number: string) {
  const { status, token } = await payByCard(world, seller, subscriptionId, number)
  expect(status).toBe(200)
  expect(token).toMatch(number === APPROVES ? /^tok_test_approves_/ : /^tok_test_declines_/)
  return token as string
}

/** A subscription of the own-gateway seller whose installment 1 `number` paid; its id. */
async function activeSubscription(world: World, number: string): Promise<number> {
  const id = await contract(world, world.own)
  await activate(world, world.own, id, number)
  return id
}

/** Installment 1 paid by notification (external gateway). */
async function notifyFirst(world: World, seller: Seller, subscriptionId: number) {
  const headers = bearer(seller.token)
  const list = await world.app.inject({ url: `/subscriptions/${subscriptionId}/installments`, headers })
  const response = await world.app.inject({
    method: 'POST',
    url: `/subscriptions/${subscriptionId}/installments/${list.json()[0].id}/notify-payment`,
    headers,
  })
  expect(response.statusCode, response.body).toBe(200)
}

const installments = (db: Db, subscriptionId: number) =>
  db
    .selectFrom('installments')
    .select(['id', 'number', 'status', 'failed_attempts', 'next_attempt_on', 'locked_until', 'paid_at'])
    .where('subscription_id', '=', subscriptionId)
    .orderBy('number')
    .execute()

const subscription = (db: Db, id: number) =>
  db
    .selectFrom('subscriptions')
    .select(['status', 'canceled_at', 'cancel_reason'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()

const recurrenceLedger = (db: Db, subscriptionId: number) =>
  db
    .selectFrom('payments as p')
    .innerJoin('installments as i', 'i.id', 'p.installment_id')
    .select(['i.number', 'p.outcome', 'p.decline_code', 'p.created_at', 'p.transaction_id', 'p.amount'])
    .where('p.subscription_id', '=', subscriptionId)
    .where('p.route', '=', 'recurrence')
    .orderBy('p.id')
    .execute()

describe('recurrence over a whole schedule', () => {
  let world: World
  let gateway: RecordingGateway
  const ids = { approving: 0, declining: 0, external: 0, unpaid: 0, switched: 0 }
  const tokens = { approving: '', declining: '' }
  const results = new Map<string, RecurrenceResult>()

  beforeAll(async () => {
    world = await createWorld('schedule')
    gateway = new RecordingGateway(world.clock)
    // Contracted 2026-11-21: installment 2 due 2026-12-21, installment 3 due 2027-01-21.
    ids.approving = await contract(world, world.own)
    tokens.approving = await activate(world, world.own, ids.approving, APPROVES)
    ids.declining = await contract(world, world.own)
    tokens.declining = await activate(world, world.own, ids.declining, DECLINES_LATER)
    ids.external = await contract(world, world.external)
    await notifyFirst(world, world.external, ids.external)
    ids.unpaid = await contract(world, world.own)
    // A partner that moved to the external gateway collects by itself from then on.
    const mover = await world.seller('own')
    ids.switched = await contract(world, mover)
    await activate(world, mover, ids.switched, APPROVES)
    await retryingTransaction(world.db, (trx) =>
      trx.updateTable('partners').set({ gateway: 'external' }).where('id', '=', mover.partnerId).execute(),
    )

    // Twice a day, a minute after local midnight and a minute before the next one.
    const deps = { db: world.db, gateway, clock: world.clock, timeZone: TZ, batchSize: 2 }
    for (let day = '2026-12-19'; day <= '2027-01-24'; day = addDays(day, 1)) {
      for (const time of ['00:01', '23:59']) {
        world.clock.current = at(day, time)
        results.set(`${day} ${time}`, await runRecurrence(deps))
      }
    }
  })
  afterAll(() => world?.close())

  const chargeDays = (token: string) => gateway.charges.filter((c) => c.token === token).map((c) => c.day)

  it('charges each later installment on its due date (local), not the day before, once', async () => {
    expect(chargeDays(tokens.approving)).toEqual(['2026-12-21', '2027-01-21'])
    // 23:59 on 2026-12-20 in São Paulo is already 2026-12-21 in UTC: still the day before.
    expect(results.get('2026-12-20 23:59')?.charged).toBe(0)
    expect(results.get('2026-12-21 00:01')).toMatchObject({ charged: 1, declined: 1, refused: 0 })

    const rows = await installments(world.db, ids.approving)
    expect(rows.map((r) => [r.number, r.status, r.failed_attempts, r.locked_until])).toEqual([
      [1, 'paid', 0, null],
      [2, 'paid', 0, null],
      [3, 'paid', 0, null],
    ])
    expect(rows[1]?.paid_at).toBe(at('2026-12-21', '00:01').toISOString())
    expect(rows[2]?.paid_at).toBe(at('2027-01-21', '00:01').toISOString())
    expect((await subscription(world.db, ids.approving)).status).toBe('pago')

    const ledger = await recurrenceLedger(world.db, ids.approving)
    expect(ledger.map((p) => [p.number, p.outcome, p.created_at])).toEqual([
      [2, 'approved', at('2026-12-21', '00:01').toISOString()],
      [3, 'approved', at('2027-01-21', '00:01').toISOString()],
    ])
    expect(ledger.every((p) => p.transaction_id?.startsWith('txn_test_'))).toBe(true)
  })

  it('retries a decline 1, 3 and 5 days after the due date, then refuses it and cancels', async () => {
    expect(chargeDays(tokens.declining)).toEqual(['2026-12-21', '2026-12-22', '2026-12-24', '2026-12-26'])
    expect(results.get('2026-12-26 00:01')).toEqual({
      charged: 0,
      declined: 1,
      refused: 1,
      canceled: 1,
      errors: 0,
    })

    const rows = await installments(world.db, ids.declining)
    expect(
      rows.map((r) => [r.number, r.status, r.failed_attempts, r.next_attempt_on, r.locked_until]),
    ).toEqual([
      [1, 'paid', 0, null, null],
      [2, 'refused', 4, null, null],
      [3, 'canceled', 0, null, null],
    ])
    expect(await subscription(world.db, ids.declining)).toEqual({
      status: 'canceled',
      canceled_at: at('2026-12-26', '00:01').toISOString(),
      cancel_reason: 'recurrence_failed',
    })

    const ledger = await recurrenceLedger(world.db, ids.declining)
    expect(ledger.map((p) => [p.number, p.outcome, p.decline_code, p.created_at])).toEqual(
      ['2026-12-21', '2026-12-22', '2026-12-24', '2026-12-26'].map((day) => [
        2,
        'declined',
        'card_declined',
        at(day, '00:01').toISOString(),
      ]),
    )
    expect(ledger.every((p) => p.amount > 0)).toBe(true)
  })

  it('shows the outcome through the API', async () => {
    const headers = bearer(await login(world.app, world.own.partner))
    const list = await world.app.inject({ url: `/subscriptions/${ids.declining}/installments`, headers })
    expect(
      list.json().map((i: { status: string; status_label: string }) => [i.status, i.status_label]),
    ).toEqual([
      ['paid', 'Pago'],
      ['refused', 'Recusado'],
      ['canceled', 'Cancelado'],
    ])
    const resource = await world.app.inject({ url: `/subscriptions/${ids.declining}`, headers })
    expect(resource.json().status).toBe('canceled')
  })

  it('never charges external-gateway, unpaid or switched partners’ subscriptions', async () => {
    const charged = new Set(gateway.charges.map((c) => c.token))
    expect(charged).toEqual(new Set([tokens.approving, tokens.declining]))
    for (const id of [ids.external, ids.unpaid, ids.switched]) {
      const rows = await installments(world.db, id)
      expect(rows.slice(1).map((r) => [r.status, r.failed_attempts, r.locked_until])).toEqual([
        ['pending', 0, null],
        ['pending', 0, null],
      ])
      expect(await recurrenceLedger(world.db, id)).toEqual([])
    }
  })
})

describe('when the recurrence may charge an installment', () => {
  let world: World
  beforeAll(async () => {
    world = await createWorld('scheduling')
  })
  afterAll(() => world?.close())

  const schedule = async (id: number) =>
    (await installments(world.db, id)).map((r) => [r.number, r.status, r.next_attempt_on])
  const dueDates = async (id: number) =>
    (
      await world.db
        .selectFrom('installments')
        .select('due_date')
        .where('subscription_id', '=', id)
        .orderBy('number')
        .execute()
    ).map((r) => r.due_date)

  it('only once a card is on file: from then on, each later one on its due date', async () => {
    const id = await contract(world, world.own)
    expect(await schedule(id)).toEqual([
      [1, 'pending', null],
      [2, 'pending', null],
      [3, 'pending', null],
    ])

    const declined = await payByCard(world, world.own, id, DECLINED)
    expect(declined.token).toBeNull()
    expect((await schedule(id)).map(([, , next]) => next)).toEqual([null, null, null])

    await activate(world, world.own, id, APPROVES)
    const [, second, third] = await dueDates(id)
    expect(await schedule(id)).toEqual([
      [1, 'paid', null],
      [2, 'pending', second],
      [3, 'pending', third],
    ])
  })

  it('never for a partner that collects by itself', async () => {
    const id = await contract(world, world.external)
    await notifyFirst(world, world.external, id)
    expect(await schedule(id)).toEqual([
      [1, 'paid', null],
      [2, 'pending', null],
      [3, 'pending', null],
    ])
  })
})

describe('pending expiry', () => {
  let world: World
  const ids = { lateEvening: 0, refusedCard: 0, nextDay: 0, paid: 0, charging: 0 }

  beforeAll(async () => {
    world = await createWorld('expiry')
    // 23:30 local on 2026-11-21 is 02:30 UTC on the 22nd: the local date counts.
    await setClock(world, at('2026-11-21', '23:30'))
    ids.lateEvening = await contract(world, world.own)
    ids.refusedCard = await contract(world, world.own)
    // A declined card leaves installment 1 refused and the subscription pending.
    expect(await payByCard(world, world.own, ids.refusedCard, DECLINED)).toEqual({ status: 402, token: null })
    ids.paid = await contract(world, world.external)
    await notifyFirst(world, world.external, ids.paid)
    await setClock(world, at('2026-11-22', '00:10'))
    ids.nextDay = await contract(world, world.external)
    await setClock(world, at('2026-11-23', '00:10'))
    ids.charging = await contract(world, world.own)
  })
  afterAll(() => world?.close())

  const expire = (date: string, time: string) => {
    world.clock.current = at(date, time)
    return expirePendingSubscriptions({ db: world.db, clock: world.clock, timeZone: TZ, batchSize: 1 })
  }
  const status = async (id: number) => (await subscription(world.db, id)).status

  it('keeps them on day 29, cancels them on day 30 with every unpaid installment', async () => {
    expect(await expire('2026-12-20', '23:59')).toEqual({ canceled: 0 })
    for (const id of [ids.lateEvening, ids.refusedCard, ids.nextDay]) expect(await status(id)).toBe('pending')

    expect(await expire('2026-12-21', '00:01')).toEqual({ canceled: 2 })
    for (const id of [ids.lateEvening, ids.refusedCard]) {
      expect(await subscription(world.db, id)).toEqual({
        status: 'canceled',
        canceled_at: at('2026-12-21', '00:01').toISOString(),
        cancel_reason: 'first_installment_unpaid',
      })
      expect((await installments(world.db, id)).map((r) => r.status)).toEqual([
        'canceled',
        'canceled',
        'canceled',
      ])
    }
    expect(await status(ids.nextDay)).toBe('pending')
    expect(await expire('2026-12-21', '23:59')).toEqual({ canceled: 0 })

    expect(await expire('2026-12-22', '00:01')).toEqual({ canceled: 1 })
    expect(await status(ids.nextDay)).toBe('canceled')
  })

  it('waits for a card payment in progress on installment 1', async () => {
    // The card route holds installment 1 while the gateway answers (here: till 2026-12-23 00:02).
    await retryingTransaction(world.db, (trx) =>
      trx
        .updateTable('installments')
        .set({ locked_until: at('2026-12-23', '00:02').toISOString() })
        .where('subscription_id', '=', ids.charging)
        .where('number', '=', 1)
        .execute(),
    )
    expect(await expire('2026-12-23', '00:01')).toEqual({ canceled: 0 })
    expect(await status(ids.charging)).toBe('pending')
    expect(await expire('2026-12-23', '00:03')).toEqual({ canceled: 1 })
    expect(await status(ids.charging)).toBe('canceled')
  })

  it('leaves paid subscriptions alone', async () => {
    expect(await expire('2027-06-01', '12:00')).toEqual({ canceled: 0 })
    expect(await status(ids.paid)).toBe('pago')
    expect((await installments(world.db, ids.paid)).map((r) => r.status)).toEqual([
      'paid',
      'pending',
      'pending',
    ])
  })
})

describe('installments of one subscription due together (after a worker outage)', () => {
  let world: World
  let id = 0

  beforeAll(async () => {
    world = await createWorld('together')
    id = await activeSubscription(world, DECLINES_LATER)
    // Installments 2 and 3 both on their last try today: one batch claims both.
    await retryingTransaction(world.db, (trx) =>
      trx
        .updateTable('installments')
        .set({ failed_attempts: 3, next_attempt_on: '2027-02-01' })
        .where('subscription_id', '=', id)
        .where('number', '>', 1)
        .execute(),
    )
  })
  afterAll(() => world?.close())

  it('charges none of them once the first refusal canceled the subscription', async () => {
    world.clock.current = at('2027-02-01')
    const gateway = new RecordingGateway(world.clock)
    const result = await runRecurrence({ db: world.db, gateway, clock: world.clock, timeZone: TZ })
    expect(result).toMatchObject({ declined: 1, refused: 1, canceled: 1, charged: 0, errors: 0 })
    expect(gateway.charges).toHaveLength(1)
    expect((await subscription(world.db, id)).status).toBe('canceled')
    expect((await installments(world.db, id)).map((i) => [i.number, i.status, i.locked_until])).toEqual([
      [1, 'paid', null],
      [2, 'refused', null],
      [3, 'canceled', null],
    ])
    expect((await recurrenceLedger(world.db, id)).map((p) => [p.number, p.outcome])).toEqual([
      [2, 'declined'],
    ])
  })
})

describe('a gateway that fails', () => {
  let world: World
  let id = 0

  beforeAll(async () => {
    world = await createWorld('failing')
    id = await activeSubscription(world, APPROVES)
  })
  afterAll(() => world?.close())

  it('keeps the installment held for the claim time, then retries the same attempt', async () => {
    const references: string[] = []
    let failing = true
    const sandbox = new SandboxGateway()
    const gateway: PaymentGateway = sandboxWith({
      async chargeSaved(saved, amount, reference, label) {
        references.push(reference)
        if (failing) throw new Error('gateway timeout')
        return sandbox.chargeSaved(saved, amount, reference, label)
      },
    })
    const errors: string[] = []
    const log = {
      debug() {},
      info() {},
      warn() {},
      error: (_: object, message: string) => void errors.push(message),
    }
    const recur = (time: string) => {
      world.clock.current = at('2026-12-21', time)
      return runRecurrence({ db: world.db, gateway, clock: world.clock, timeZone: TZ, log })
    }

    expect(await recur('10:00')).toMatchObject({ charged: 0, errors: 1 })
    expect(errors).toEqual(['recurrence charge failed'])
    const held = (await installments(world.db, id))[1]
    expect(held).toMatchObject({ status: 'pending', failed_attempts: 0 })
    // Held for the claim length (AMPARO_PAYMENT_CLAIM_SECONDS, 120 s by default).
    expect(held?.locked_until).toBe(at('2026-12-21', '10:02').toISOString())
    expect(await recur('10:01')).toMatchObject({ charged: 0, errors: 0 })

    failing = false
    expect(await recur('10:03')).toMatchObject({ charged: 1, errors: 0 })
    // The same reference both times: a real gateway's idempotency key for the one attempt.
    expect(references).toEqual([`installment-${held?.id}-charge-1`, `installment-${held?.id}-charge-1`])
    expect((await recurrenceLedger(world.db, id)).map((p) => p.outcome)).toEqual(['approved'])
  })
})

describe('two workers at once', () => {
  let world: World
  let second: Db
  const approving: number[] = []
  const declining: number[] = []

  beforeAll(async () => {
    world = await createWorld('concurrency')
    for (let i = 0; i < 30; i += 1) {
      const id = await contract(world, world.own)
      const declines = i % 5 === 0
      await activate(world, world.own, id, declines ? DECLINES_LATER : APPROVES)
      ;(declines ? declining : approving).push(id)
    }
    // A second pool (PostgreSQL) or connection (SQLite file), as a second worker process has.
    second = createDb(world.config.database)
  })
  afterAll(async () => {
    await second?.destroy()
    await world?.close()
  })

  it('charge every due installment exactly once between them', async () => {
    world.clock.current = at('2026-12-21', '09:00')
    const gateways = [new RecordingGateway(world.clock, 8), new RecordingGateway(world.clock, 8)] as const
    const worker = (db: Db, gateway: RecordingGateway) =>
      runRecurrence({ db, gateway, clock: world.clock, timeZone: TZ, batchSize: 3 })
    const [a, b] = await Promise.all([worker(world.db, gateways[0]), worker(second, gateways[1])])

    // Both took part: otherwise this would not test anything.
    expect(gateways[0].charges.length).toBeGreaterThan(0)
    expect(gateways[1].charges.length).toBeGreaterThan(0)
    const references = gateways.flatMap((g) => g.charges.map((c) => c.reference))
    expect(references).toHaveLength(30)
    expect(new Set(references).size).toBe(30)
    expect(a.charged + b.charged).toBe(24)
    expect(a.declined + b.declined).toBe(6)
    expect(a.errors + b.errors).toBe(0)

    for (const id of approving) {
      const ledger = await recurrenceLedger(world.db, id)
      expect(ledger.map((p) => [p.number, p.outcome])).toEqual([[2, 'approved']])
      expect((await installments(world.db, id)).map((r) => r.status)).toEqual(['paid', 'paid', 'pending'])
    }
    for (const id of declining) {
      const ledger = await recurrenceLedger(world.db, id)
      expect(ledger.map((p) => [p.number, p.outcome])).toEqual([[2, 'declined']])
      const rows = await installments(world.db, id)
      expect(rows[1]).toMatchObject({ status: 'pending', failed_attempts: 1, next_attempt_on: '2026-12-22' })
    }
    const held = await world.db
      .selectFrom('installments')
      .select('id')
      .where('locked_until', 'is not', null)
      .execute()
    expect(held).toEqual([])
  })

  it('find nothing left to charge the same day', async () => {
    world.clock.current = at('2026-12-21', '18:00')
    const gateway = new RecordingGateway(world.clock)
    const deps = (db: Db) => ({ db, gateway, clock: world.clock, timeZone: TZ })
    await Promise.all([runRecurrence(deps(world.db)), runRecurrence(deps(second))])
    expect(gateway.charges).toEqual([])
  })
})

/** Runs the `amparo` command in-process: its exit code and the lines it printed. */
async function amparo(env: Record<string, string>, ...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await run(argv, { env, out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out, err }
}

describe('amparo worker', () => {
  let world: World
  const ids = { approving: 0, declining: 0, unpaid: 0 }

  beforeAll(async () => {
    // The command runs on the system clock: contract 40 days ago, so installment 2 is overdue
    // and the unpaid subscription is past its 30 days.
    world = await createWorld('cli')
    await setClock(world, new Date(Date.now() - 40 * 86_400_000))
    ids.approving = await contract(world, world.own)
    await activate(world, world.own, ids.approving, APPROVES)
    ids.declining = await contract(world, world.own)
    await activate(world, world.own, ids.declining, DECLINES_LATER)
    ids.unpaid = await contract(world, world.own)
  })
  afterAll(() => world?.close())

  it('--once --json without a payment gateway: expiry only, recurrence skipped', async () => {
    const result = await amparo(
      { ...world.env, AMPARO_PAYMENT_GATEWAY: 'none' },
      'worker',
      '--once',
      '--json',
    )
    expect(result.code).toBe(0)
    expect(result.out).toHaveLength(1)
    expect(JSON.parse(result.out[0] as string)).toEqual({
      reconciliation: { skipped: 'no payment gateway (AMPARO_PAYMENT_GATEWAY=none)' },
      recurrence: { skipped: 'no payment gateway (AMPARO_PAYMENT_GATEWAY=none)' },
      refunds: { skipped: 'no payment gateway (AMPARO_PAYMENT_GATEWAY=none)' },
      expiry: { canceled: 1 },
      subscription_end: { expired: 0 },
      coverage: { protected: 0, expired: 0 },
      idempotency: { purged: 0 },
      events: { purged: expect.any(Number) },
      deliveries: { purged: 0 },
      webhooks: { dispatched: 0, succeeded: 0, retried: 0, failed: 0, disabled: 0, lost: 0, errors: 0 },
    })
    expect((await subscription(world.db, ids.unpaid)).cancel_reason).toBe('first_installment_unpaid')
    expect((await installments(world.db, ids.approving))[1]?.status).toBe('pending')
  })

  it('--once --json: charges the overdue installments once, reschedules the decline from tomorrow', async () => {
    const result = await amparo(world.env, 'worker', '--once', '--json')
    expect(result.code).toBe(0)
    expect(result.out).toHaveLength(1)
    expect(JSON.parse(result.out[0] as string)).toEqual({
      reconciliation: { recorded: 0, errors: 0 },
      recurrence: { charged: 1, declined: 1, refused: 0, canceled: 0, errors: 0 },
      refunds: { refunded: 0, retried: 0, failed: 0, errors: 0 },
      expiry: { canceled: 0 },
      subscription_end: { expired: 0 },
      coverage: { protected: 0, expired: 0 },
      idempotency: { purged: 0 },
      events: { purged: expect.any(Number) },
      deliveries: { purged: 0 },
      webhooks: { dispatched: 0, succeeded: 0, retried: 0, failed: 0, disabled: 0, lost: 0, errors: 0 },
    })
    const tomorrow = addDays(formatDate(new Date(), world.config.timeZone), 1)
    expect((await installments(world.db, ids.approving))[1]?.status).toBe('paid')
    expect((await installments(world.db, ids.declining))[1]).toMatchObject({
      status: 'pending',
      failed_attempts: 1,
      next_attempt_on: tomorrow,
    })

    const again = await amparo(world.env, 'worker', '--once')
    expect(again.code).toBe(0)
    expect(again.out).toEqual([
      [
        'Reconciliation: 0 unrecorded card charges recorded, 0 errors.',
        'Recurrence: 0 charged, 0 declined, 0 refused, 0 subscriptions canceled, 0 errors.',
        'Refunds: 0 paid, 0 to retry, 0 failed, 0 errors.',
        'Expiry: 0 unpaid pending subscriptions canceled.',
        'Coverage clock: 0 annual plans now protected, 0 expired.',
        'Idempotency keys purged: 0.',
        'Events purged (older than 30 days): 0.',
        'Webhooks: 0 delivered, 0 to retry, 0 failed, 0 endpoints disabled; 0 old deliveries purged.',
      ].join('\n'),
    ])
  })

  it('loops until SIGTERM, then stops and lets go of the signal', async () => {
    await retryingTransaction(world.db, (trx) =>
      trx
        .updateTable('installments')
        .set({ next_attempt_on: formatDate(new Date(), world.config.timeZone) })
        .where('subscription_id', '=', ids.declining)
        .where('number', '=', 2)
        .execute(),
    )
    const loop = amparo(world.env, 'worker', '--interval', '1')
    const declines = async () => (await recurrenceLedger(world.db, ids.declining)).length
    for (let i = 0; i < 100 && (await declines()) < 2; i += 1) await sleep(50)
    expect(await declines()).toBe(2)
    expect(process.listenerCount('SIGTERM')).toBe(1)
    process.emit('SIGTERM', 'SIGTERM')
    const result = await loop
    expect(result.code).toBe(0)
    expect(process.listenerCount('SIGTERM')).toBe(0)
    expect(process.listenerCount('SIGINT')).toBe(0)
  })

  it('refuses an interval that is not a positive number of seconds', async () => {
    const result = await amparo(world.env, 'worker', '--interval', '0')
    expect(result.code).toBe(2)
    expect(result.err).toEqual(["amparo: --interval must be a positive integer, got '0'"])
  })

  it('refuses an interval past a day, which Node would not wait (its timers overflow past 2^31 ms)', async () => {
    const result = await amparo(world.env, 'worker', '--interval', '2147484')
    expect(result.code).toBe(2)
    expect(result.err).toEqual(["amparo: --interval must be at most 86400 seconds (a day), got '2147484'"])
  })

  it('refuses --json without --once: a looping worker has no single result to print', async () => {
    const result = await amparo(world.env, 'worker', '--json')
    expect(result.code).toBe(2)
    expect(result.err).toEqual(['amparo: --json needs --once: a looping worker logs instead'])
  })

  it('--once with a failing job: the later jobs still run, the failure is logged, exit 1', async () => {
    // The coverage clock (third of four jobs) cannot read its table; the purge after it can.
    const day = 86_400_000
    await retryingTransaction(world.db, (trx) =>
      trx
        .insertInto('idempotency_keys')
        .values({
          partner_id: world.own.partnerId,
          key: 'expired-key',
          fingerprint: 'x',
          response_status: 201,
          response_body: '{}',
          created_at: new Date(Date.now() - 2 * day).toISOString(),
          expires_at: new Date(Date.now() - day).toISOString(),
        })
        .execute(),
    )
    await sql`alter table annual_plans rename to annual_plans_away`.execute(world.db)
    try {
      const result = await amparo({ ...world.env, LOG_LEVEL: 'error' }, 'worker', '--once', '--json')
      expect(result.code).toBe(1)
      expect(result.out).toEqual([])
      expect(result.err.at(-1)).toBe('amparo: worker jobs failed: coverage_clock')
      const logged = result.err.slice(0, -1).map((line) => JSON.parse(line))
      expect(logged.find((line) => line.msg === 'worker round failed')).toMatchObject({
        level: 50,
        expiry: { canceled: 0 },
        idempotency: { purged: 1 },
        err: { message: 'worker jobs failed: coverage_clock' },
      })
    } finally {
      await sql`alter table annual_plans_away rename to annual_plans`.execute(world.db)
    }
    const left = await world.db.selectFrom('idempotency_keys').select('key').execute()
    expect(left).toEqual([])
  })
})

describe('amparo worker --once and a first charge the database could not record', () => {
  let world: World
  let id = 0

  beforeAll(async () => {
    world = await createWorld('unrecorded')
    // The charge is made 40 s before the command runs (on the system clock): longer than any call takes.
    await setClock(world, new Date(Date.now() - 40_000))
    id = await contract(world, world.own)
    // The settling transaction fails at the ledger, as when the database goes away after the
    // gateway approved.
    const ledgerFails: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'payments') {
          throw Object.assign(new Error('terminating connection due to administrator command'), {
            code: '57P01',
          })
        }
        return node
      },
      transformResult: async ({ result }) => result,
    }
    const broken = await buildCheckedApp({
      config: world.config,
      db: withPlugin(world.db, ledgerFails),
      clock: world.clock,
      logger: false,
    })
    try {
      const response = await broken.inject({
        method: 'POST',
        url: `/subscriptions/${id}/payment`,
        headers: bearer(world.own.token),
        payload: { creditCard: { number: APPROVES, expiry: '1230', cvv: '123' } },
      })
      expect(response.statusCode, response.body).toBe(503)
    } finally {
      await broken.close()
    }
  })
  afterAll(() => world?.close())

  it('records it from the stored attempt: installment 1 paid once, the subscription active', async () => {
    expect(await world.db.selectFrom('card_attempts').select('id').execute()).toHaveLength(1)
    expect((await installments(world.db, id))[0]?.status).toBe('pending')

    const result = await amparo(world.env, 'worker', '--once', '--json')
    expect(result.code, result.err.join('\n')).toBe(0)
    expect(JSON.parse(result.out[0] as string)).toMatchObject({
      reconciliation: { recorded: 1, errors: 0 },
      expiry: { canceled: 0 },
    })
    expect((await subscription(world.db, id)).status).toBe('pago')
    expect((await installments(world.db, id))[0]?.status).toBe('paid')
    const ledger = await world.db
      .selectFrom('payments')
      .select(['outcome', 'route'])
      .where('subscription_id', '=', id)
      .execute()
    expect(ledger).toEqual([{ outcome: 'approved', route: 'card' }])
    // Kept, recorded, for its key's retry (docs/decisions.md, Safe retries).
    const open = world.db.selectFrom('card_attempts').select('id').where('recorded_at', 'is', null)
    expect(await open.execute()).toEqual([])

    const again = await amparo(world.env, 'worker', '--once', '--json')
    expect(JSON.parse(again.out[0] as string)).toMatchObject({ reconciliation: { recorded: 0, errors: 0 } })
  })
})
