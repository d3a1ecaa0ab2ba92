import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { InsertQueryNode, type KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { createDb, type Db } from '../src/db/database.js'
import { retryingTransaction } from '../src/db/transaction.js'
import type { FirstCharge, PaymentGateway } from '../src/modules/payments/payment-gateway.js'
import { SandboxGateway } from '../src/modules/payments/sandbox-gateway.js'
import type { Clock } from '../src/shared/time.js'
import { expectedError } from './helpers/errors.js'
import { sandboxWith } from './helpers/gateways.js'
import { buildCheckedApp } from './helpers/test-app.js'
import { createTestDatabase, interleaving, type TestDatabase, withPlugin } from './helpers/test-db.js'
import {
  appWith,
  CARDS,
  cancel,
  card,
  clock,
  contract,
  ctx,
  extraApps,
  first,
  installmentRow,
  ledger,
  logLines,
  logStream,
  NOW,
  notify,
  nth,
  party,
  partyOf,
  pay,
  statusOf,
  subscriptionRow,
  useSubscriptionPaymentsWorld,
} from './helpers/world/subscription-payments.js'
import { seedCatalog } from './helpers/world.js'

// Simultaneous payments and notifications: one charge, one ledger row, a held claim after a failure.

useSubscriptionPaymentsWorld()

/** The sandbox behind a gate: each charge waits until the test opens it. */
class GatedGateway implements PaymentGateway {
  charges = 0
  private readonly sandbox = new SandboxGateway()
  private open!: () => void
  private readonly gate = new Promise<void>((resolve) => {
    this.open = resolve
  })
  private started!: () => void
  readonly firstCharge = new Promise<void>((resolve) => {
    this.started = resolve
  })

  createCustomer: PaymentGateway['createCustomer'] = (...args) => this.sandbox.createCustomer(...args)
  saveCard: PaymentGateway['saveCard'] = (...args) => this.sandbox.saveCard(...args)
  chargeSaved: PaymentGateway['chargeSaved'] = (...args) => this.sandbox.chargeSaved(...args)
  verifyCard: PaymentGateway['verifyCard'] = (...args) => this.sandbox.verifyCard(...args)
  detachCard: PaymentGateway['detachCard'] = (...args) => this.sandbox.detachCard(...args)
  refund: PaymentGateway['refund'] = (...args) => this.sandbox.refund(...args)
  createPix: PaymentGateway['createPix'] = (...args) => this.sandbox.createPix(...args)
  createBoleto: PaymentGateway['createBoleto'] = (...args) => this.sandbox.createBoleto(...args)

  async chargeCard(charge: FirstCharge) {
    this.charges += 1
    this.started()
    await this.gate
    return this.sandbox.chargeCard(charge)
  }

  release() {
    this.open()
  }
}

describe('concurrent card payments', () => {
  it('lets one of two simultaneous payments charge; the other answers 409, and so does a cancellation', async () => {
    const gateway = new GatedGateway()
    const app = await appWith(gateway)
    const p = await party('own')
    const s = await contract(p)

    const winner = pay(p, s.id, card(CARDS.visa), app)
    await gateway.firstCharge
    const loser = await pay(p, s.id, card(CARDS.mastercard), app)
    expect(loser.statusCode, loser.body).toBe(409)
    expect(loser.json()).toEqual(
      expectedError(loser, 'payment_in_progress', {
        message: 'A payment of this item is in progress: try again once it has answered.',
      }),
    )
    const cancellation = await cancel(p, s.id)
    expect(cancellation.statusCode, cancellation.body).toBe(409)
    expect(await statusOf(p, s.id)).toBe('pending')

    gateway.release()
    expect((await winner).statusCode).toBe(200)
    expect(gateway.charges).toBe(1)
    expect(await ledger(s.id)).toHaveLength(1)
    expect((await installmentRow(first(s).id)).locked_until).toBeNull()
    expect((await subscriptionRow(s.id)).card_last4).toBe('1111')
  })

  it('charges exactly once among many simultaneous payments', async () => {
    let charges = 0
    const sandbox = new SandboxGateway()
    const slow: PaymentGateway = sandboxWith({
      async chargeCard(charge) {
        charges += 1
        await new Promise((resolve) => setTimeout(resolve, 20))
        return sandbox.chargeCard(charge)
      },
    })
    const app = await appWith(slow)
    const p = await party('own')
    const s = await contract(p)
    const responses = await Promise.all(Array.from({ length: 8 }, () => pay(p, s.id, card(CARDS.visa), app)))
    const statuses = responses.map((r) => r.statusCode)
    expect(statuses.filter((code) => code === 200)).toHaveLength(1)
    // 429: past the card-testing limit, attempts under way count as the declines they may become.
    expect(statuses.filter((code) => ![200, 409, 422, 429].includes(code))).toEqual([])
    expect(charges).toBe(1)
    expect(await ledger(s.id)).toHaveLength(1)
  })

  it('takes over a claim that has expired, but not a current one, which it leaves in place', async () => {
    const p = await party('own')
    const s = await contract(p)
    const held = new Date(NOW.getTime() + 30_000).toISOString()
    await retryingTransaction(ctx.db, (trx) =>
      trx.updateTable('installments').set({ locked_until: held }).where('id', '=', first(s).id).execute(),
    )
    expect((await pay(p, s.id, card(CARDS.visa))).statusCode).toBe(409)
    expect(await ledger(s.id)).toEqual([])
    expect(new Date((await installmentRow(first(s).id)).locked_until ?? '').toISOString()).toBe(held)

    const abandoned = new Date(NOW.getTime() - 1000).toISOString()
    await retryingTransaction(ctx.db, (trx) =>
      trx
        .updateTable('installments')
        .set({ locked_until: abandoned })
        .where('id', '=', first(s).id)
        .execute(),
    )
    const response = await pay(p, s.id, card(CARDS.visa))
    expect(response.statusCode, response.body).toBe(200)
    expect((await installmentRow(first(s).id)).locked_until).toBeNull()
  })

  it('releases the claim when the gateway fails, recording nothing', async () => {
    const broken: PaymentGateway = sandboxWith({
      chargeCard: async () => {
        throw new Error('gateway unreachable')
      },
      chargeSaved: async () => {
        throw new Error('gateway unreachable')
      },
    })
    const app = await appWith(broken)
    const p = await party('own')
    const s = await contract(p)
    const response = await pay(p, s.id, card(CARDS.visa), app)
    expect(response.statusCode).toBe(500)
    expect(response.json()).toEqual(expectedError(response, 'server_error', { message: 'Server error.' }))
    expect(await installmentRow(first(s).id)).toMatchObject({ status: 'pending', locked_until: null })
    expect(await ledger(s.id)).toEqual([])
    // Nothing is left held: the next try goes through.
    expect((await pay(p, s.id, card(CARDS.visa))).statusCode).toBe(200)
  })
})

describe('a card charged whose charge cannot be recorded', () => {
  it('keeps the installment held, so a retry answers 409 instead of charging again, and logs the charge', async () => {
    let charges = 0
    const sandbox = new SandboxGateway()
    const counting: PaymentGateway = sandboxWith({
      chargeCard: (...args) => {
        charges += 1
        return sandbox.chargeCard(...args)
      },
    })
    // The ledger insert fails once, as when PostgreSQL restarts between the charge and its record.
    let armed = true
    const ledgerFailsOnce: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (armed && InsertQueryNode.is(node) && node.into?.table.identifier.name === 'payments') {
          armed = false
          throw Object.assign(new Error('terminating connection due to administrator command'), {
            code: '57P01',
          })
        }
        return node
      },
      transformResult: async ({ result }) => result,
    }
    const app = await buildCheckedApp({
      config: ctx.config,
      db: withPlugin(ctx.db, ledgerFailsOnce),
      clock,
      gateway: counting,
      logStream,
    })
    extraApps.push(app)
    const p = await party('own')
    const s = await contract(p)

    const failed = await pay(p, s.id, card(CARDS.visa), app)
    expect(failed.statusCode, failed.body).toBe(503)
    expect(charges).toBe(1)
    expect(await ledger(s.id)).toEqual([])
    expect((await installmentRow(first(s).id)).locked_until).not.toBeNull()
    const logged = logLines
      .map((line) => JSON.parse(line))
      .find((entry) => entry.msg === 'card charged but the charge could not be recorded')
    expect(logged).toMatchObject({
      level: 50,
      installment_id: first(s).id,
      transaction_id: expect.any(String),
    })

    const retried = await pay(p, s.id, card(CARDS.visa), app)
    expect(retried.statusCode, retried.body).toBe(409)
    expect(charges).toBe(1)
  })
})

describe('concurrent notifications through two database connections', () => {
  const dir = mkdtempSync(join(tmpdir(), 'amparo-payments-'))
  let database: TestDatabase
  let secondDb: Db
  const apps: App[] = []
  // Every reading moves the clock a second on: a notification that paid again would show another time.
  let tick = NOW.getTime()
  const ticking: Clock = {
    now: () => {
      tick += 1000
      return new Date(tick)
    },
  }

  beforeAll(async () => {
    // SQLite on a file (two connections to one file); PostgreSQL: the same schema through two pools.
    database = await createTestDatabase({ sqliteFile: join(dir, 'amparo.sqlite') })
    secondDb = createDb(database.config.database)
    for (const db of [database.db, secondDb]) {
      const interleaved = withPlugin(db, interleaving)
      apps.push(
        await buildCheckedApp({ config: database.config, db: interleaved, clock: ticking, logger: false }),
      )
    }
    await seedCatalog(database.db)
  })
  afterAll(async () => {
    for (const app of apps) await app.close()
    await secondDb?.destroy()
    await database?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('records exactly one payment for 20 simultaneous notifications, all answering the same 200', async () => {
    const [one, two] = apps as [App, App]
    const p = await partyOf(database.db, one, 'external')
    const s = await contract(p, one)
    for (const installment of [first(s), nth(s, 2)]) {
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => notify(p, s.id, installment.id, i % 2 === 0 ? one : two)),
      )
      for (const response of responses) expect(response.statusCode, response.body).toBe(200)
      const bodies = responses.map((r) => r.json())
      expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1)
      expect(bodies[0]).toMatchObject({ id: installment.id, status: 'paid', paid_at: expect.any(String) })
      const rows = (await ledger(s.id, database.db)).filter((r) => r.installment_id === installment.id)
      expect(rows).toHaveLength(1)
    }
    const subscription = await database.db
      .selectFrom('subscriptions')
      .select('status')
      .where('id', '=', s.id)
      .executeTakeFirstOrThrow()
    expect(subscription.status).toBe('pago')
  })
})
