import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyRequest } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { createDb, type Db } from '../src/db/database.js'
import { retryingTransaction } from '../src/db/transaction.js'
import type { Clock } from '../src/shared/time.js'
import { buildCheckedApp } from './helpers/test-app.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'
import {
  bearer,
  createCustomer,
  partnerWithToken,
  seedCatalog,
  seedPlan,
  TOTAL_12X,
} from './helpers/world.js'

// A process that dies between the commit of a write and its answer (kill -9, a crash): the client's
// retry with the same Idempotency-Key gets the answer the write would have sent, marked replayed,
// and nothing runs a second time. The crash is simulated by a hook that throws right after the
// commit (`afterCommit`, what the cluster suite's AMPARO_FAULT_KILL_AFTER_COMMIT kills the process in).

const NOW = new Date('2026-11-21T15:00:00.000Z')
const clock: Clock = { now: () => NOW }
const APPROVED_CARD = { number: '4111111111111111', expiry: '1230', cvv: '123' }
const DECLINED_CARD = { number: '4000000000000002', expiry: '1230', cvv: '123' }
/** Passes the card update's check; its charges are declined. */
const DECLINES_LATER_CARD = { number: '4000000000000341', expiry: '1230', cvv: '123' }

const dir = mkdtempSync(join(tmpdir(), 'amparo-idem-crash-'))
let database: TestDatabase
/** A second connection (pool) to the same database, for the second app. */
let second: Db
/** The app that "crashes" after the commit of a request whose path is in `crashOn`. */
let crashing: App
/** The app the client retries on (another process, as behind a load balancer). */
let healthy: App
const crashOn = new Set<string>()
const crashes: string[] = []

function crashAfterCommit(request: FastifyRequest) {
  if (!crashOn.has(request.url)) return
  crashOn.delete(request.url)
  crashes.push(request.url)
  throw new Error('simulated crash after the commit')
}

interface Party {
  token: string
  planId: number
  modelId: number
}
let external: Party
let own: Party

async function partyOf(gateway: 'external' | 'own'): Promise<Party> {
  const { partner, token } = await partnerWithToken(healthy, database.db, gateway)
  const plan = await seedPlan(database.db, partner.id, TOTAL_12X, NOW.toISOString())
  await createCustomer(healthy, token)
  const model = await database.db
    .selectFrom('models')
    .select('id')
    .where('name', '=', 'Galaxy S25')
    .executeTakeFirstOrThrow()
  return { token, planId: plan.id, modelId: model.id }
}

// Not useTestApp: a crashing app and a healthy one on two connections to one database, built here.
beforeAll(async () => {
  // A file on SQLite, so that the two apps write through two connections as two processes do.
  database = await createTestDatabase({ sqliteFile: join(dir, 'crash.sqlite') })
  await seedCatalog(database.db)
  second = createDb(database.config.database)
  const options = { config: database.config, clock, logger: false }
  crashing = await buildCheckedApp({ ...options, db: database.db, afterCommit: crashAfterCommit })
  healthy = await buildCheckedApp({ ...options, db: second })
  external = await partyOf('external')
  own = await partyOf('own')
})

afterAll(async () => {
  await crashing?.close()
  await healthy?.close()
  await second?.destroy()
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
})

let keys = 0
const nextKey = () => `crash-key-${++keys}`

function send(
  app: App,
  party: Party,
  url: string,
  key: string | undefined,
  payload?: object,
  method: 'POST' | 'PUT' = 'POST',
) {
  return app.inject({
    method,
    url,
    headers: { ...bearer(party.token), ...(key && { 'idempotency-key': key }) },
    ...(payload && { payload }),
  })
}

const contractBody = (party: Party, origin: string) => ({
  plan_id: party.planId,
  customer_document: '52998224725',
  model_id: party.modelId,
  metadata: { origin },
})

async function subscriptionsOf(origin: string) {
  return database.db.selectFrom('subscriptions').select('id').where('origin', '=', origin).execute()
}

async function contracted(party: Party): Promise<number> {
  const created = await send(healthy, party, '/subscriptions', undefined, contractBody(party, 'setup'))
  expect(created.statusCode, created.body).toBe(201)
  return created.json().id
}

async function cardChecksOf(subscriptionId: number) {
  return database.db
    .selectFrom('card_checks')
    .select('outcome')
    .where('subscription_id', '=', subscriptionId)
    .orderBy('id')
    .execute()
}

async function paymentsOf(subscriptionId: number) {
  return database.db
    .selectFrom('payments')
    .select(['outcome', 'decline_code'])
    .where('subscription_id', '=', subscriptionId)
    .orderBy('id')
    .execute()
}

describe('a crash between the commit and the answer', () => {
  it('the retry with the key gets the contract as it was committed, marked replayed, made once', async () => {
    const key = nextKey()
    const body = contractBody(external, key)
    crashOn.add('/subscriptions')
    const lost = await send(crashing, external, '/subscriptions', key, body)
    expect(crashes).toContain('/subscriptions')
    expect(lost.statusCode).toBe(500)
    const [row, ...others] = await subscriptionsOf(key)
    expect(others).toEqual([])

    const retry = await send(healthy, external, '/subscriptions', key, body)
    expect(retry.statusCode, retry.body).toBe(201)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(retry.json().id).toBe(row?.id)
    const shown = await healthy.inject({ url: `/subscriptions/${row?.id}`, headers: bearer(external.token) })
    expect(retry.json()).toEqual(shown.json())
    expect(await subscriptionsOf(key)).toHaveLength(1)
    // Every retry after that gets the same bytes.
    const again = await send(crashing, external, '/subscriptions', key, body)
    expect(again.body).toBe(retry.body)
  })

  it('a card payment: the retry gets the approval kept by the charge’s settlement, charged once', async () => {
    const id = await contracted(own)
    const key = nextKey()
    const url = `/subscriptions/${id}/payment`
    crashOn.add(url)
    const lost = await send(crashing, own, url, key, { creditCard: APPROVED_CARD })
    expect(lost.statusCode).toBe(500)
    expect(await paymentsOf(id)).toEqual([{ outcome: 'approved', decline_code: null }])

    const retry = await send(healthy, own, url, key, { creditCard: APPROVED_CARD })
    expect(retry.statusCode, retry.body).toBe(200)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(retry.json()).toMatchObject({ id, status: 'pago' })
    expect(await paymentsOf(id)).toEqual([{ outcome: 'approved', decline_code: null }])
  })

  it('a declined card payment: the retry gets the 402, the card is not charged again', async () => {
    const id = await contracted(own)
    const key = nextKey()
    const url = `/subscriptions/${id}/payment`
    crashOn.add(url)
    const lost = await send(crashing, own, url, key, { creditCard: DECLINED_CARD })
    expect(lost.statusCode).toBe(500)

    const retry = await send(healthy, own, url, key, { creditCard: DECLINED_CARD })
    expect(retry.statusCode, retry.body).toBe(402)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(retry.json()).toMatchObject({ code: 'card_declined', decline_code: 'card_declined' })
    expect(await paymentsOf(id)).toEqual([{ outcome: 'declined', decline_code: 'card_declined' }])
  })

  it('a card update whose due charge is declined: the retry gets the 402, the decline recorded once', async () => {
    const id = await contracted(own)
    expect(
      (await send(healthy, own, `/subscriptions/${id}/payment`, undefined, { creditCard: APPROVED_CARD }))
        .statusCode,
    ).toBe(200)
    // Installment 2 fell due: the new card passes the check and its charge is declined.
    await retryingTransaction(database.db, (trx) =>
      trx
        .updateTable('installments')
        .set({ due_date: '2026-11-20' })
        .where('subscription_id', '=', id)
        .where('number', '=', 2)
        .execute(),
    )
    const key = nextKey()
    const url = `/subscriptions/${id}/card`
    const body = { creditCard: DECLINES_LATER_CARD }
    crashOn.add(url)
    const lost = await send(crashing, own, url, key, body, 'PUT')
    expect(lost.statusCode).toBe(500)
    const declined = [
      { outcome: 'approved', decline_code: null },
      { outcome: 'declined', decline_code: 'card_declined' },
    ]
    expect(await paymentsOf(id)).toEqual(declined)

    const retry = await send(healthy, own, url, key, body, 'PUT')
    expect(retry.statusCode, retry.body).toBe(402)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(retry.json()).toMatchObject({ code: 'card_declined', decline_code: 'card_declined' })
    expect(await paymentsOf(id)).toEqual(declined)
    expect(await cardChecksOf(id)).toEqual([{ outcome: 'approved' }])
  })

  it('a card update whose card is declined: the retry gets the 402, the check recorded once', async () => {
    const id = await contracted(own)
    expect(
      (await send(healthy, own, `/subscriptions/${id}/payment`, undefined, { creditCard: APPROVED_CARD }))
        .statusCode,
    ).toBe(200)
    const key = nextKey()
    const url = `/subscriptions/${id}/card`
    crashOn.add(url)
    const lost = await send(crashing, own, url, key, { creditCard: DECLINED_CARD }, 'PUT')
    expect(lost.statusCode).toBe(500)

    const retry = await send(healthy, own, url, key, { creditCard: DECLINED_CARD }, 'PUT')
    expect(retry.statusCode, retry.body).toBe(402)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(await cardChecksOf(id)).toEqual([{ outcome: 'declined' }])
  })

  it('a card update with nothing due: the retry gets the subscription with the new card, checked once', async () => {
    const id = await contracted(own)
    expect(
      (await send(healthy, own, `/subscriptions/${id}/payment`, undefined, { creditCard: APPROVED_CARD }))
        .statusCode,
    ).toBe(200)
    const key = nextKey()
    const url = `/subscriptions/${id}/card`
    const body = { creditCard: { ...APPROVED_CARD, number: '5555555555554444' } }
    crashOn.add(url)
    expect((await send(crashing, own, url, key, body, 'PUT')).statusCode).toBe(500)

    const retry = await send(healthy, own, url, key, body, 'PUT')
    expect(retry.statusCode, retry.body).toBe(200)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(retry.json()).toMatchObject({ id, card: { last4: '4444' } })
    expect(await cardChecksOf(id)).toEqual([{ outcome: 'approved' }])
  })

  it('without a key the commit stands and nothing is kept for a retry', async () => {
    const origin = `no-key-${nextKey()}`
    crashOn.add('/subscriptions')
    const lost = await send(crashing, external, '/subscriptions', undefined, contractBody(external, origin))
    expect(lost.statusCode).toBe(500)
    expect(await subscriptionsOf(origin)).toHaveLength(1)
  })
})

describe('requests with the same key at once', () => {
  it('on two processes: one contract, every answer its 201', async () => {
    const key = nextKey()
    const body = contractBody(external, key)
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        send(i % 2 ? healthy : crashing, external, '/subscriptions', key, body),
      ),
    )
    expect(answers.map((a) => a.statusCode)).toEqual(Array(6).fill(201))
    expect(answers.filter((a) => a.headers['idempotent-replayed'] !== 'true')).toHaveLength(1)
    expect(new Set(answers.map((a) => a.body)).size).toBe(1)
    expect(await subscriptionsOf(key)).toHaveLength(1)
  })
})
