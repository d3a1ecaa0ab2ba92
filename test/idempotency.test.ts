import { createHash } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { createDb, type Db } from '../src/db/database.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { fingerprint, fingerprintKeys, purgeExpiredIdempotencyKeys } from '../src/plugins/idempotency.js'
import { cpf } from './helpers/documents.js'
import { requestIdOf } from './helpers/errors.js'
import { buildCheckedApp, useTestApp } from './helpers/test-app.js'
import { bearer, login, partnerWithToken, seedCatalog, type TestPartner } from './helpers/world.js'

// A clock the tests move: keys live 24 h.
let now = new Date('2026-11-21T12:00:00.000Z')
const clock = { now: () => now }

// A file database on SQLite, so the cross-connection test below has two real connections.
const ctx = useTestApp({ clock, onDisk: true })
let tokenA: string
let tokenB: string
let partnerA: number
let seededA: TestPartner

beforeAll(async () => {
  await seedCatalog(ctx.db)
  ;({ partner: seededA, token: tokenA } = await partnerWithToken(ctx.app, ctx.db))
  partnerA = seededA.id
  ;({ token: tokenB } = await partnerWithToken(ctx.app, ctx.db))
})

let seq = 0
/** A distinct valid CPF per call. */
const nextCpf = () => {
  seq += 1
  return cpf(seq * 7919)
}

const customer = (document: string) => ({
  name: 'Ana',
  document,
  email: 'ana@example.com',
  phone: '11987654321',
})

function post(target: App, token: string, key: string | undefined, payload: object, url = '/customers') {
  return target.inject({
    method: 'POST',
    url,
    headers: { ...bearer(token), ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload,
  })
}

async function countCustomers(db: Db, document: string) {
  const rows = await db.selectFrom('customers').select('id').where('document', '=', document).execute()
  return rows.length
}

describe('Idempotency-Key', () => {
  it('replays the first response, marked, and creates nothing twice', async () => {
    const body = customer(nextCpf())
    const first = await post(ctx.app, tokenA, 'key-replay-1', body)
    expect(first.statusCode).toBe(201)
    expect(first.headers['idempotent-replayed']).toBeUndefined()

    const again = await post(ctx.app, tokenA, 'key-replay-1', body)
    expect(again.statusCode).toBe(201)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json()).toEqual(first.json())
    expect(await countCustomers(ctx.db, body.document)).toBe(1)
  })

  it('treats the same body with keys in another order as the same request', async () => {
    const body = customer(nextCpf())
    await post(ctx.app, tokenA, 'key-order', body)
    const reordered = { phone: body.phone, email: body.email, document: body.document, name: body.name }
    const again = await post(ctx.app, tokenA, 'key-order', reordered)
    expect(again.headers['idempotent-replayed']).toBe('true')
  })

  it('refuses the key with another body: 422 errors.Idempotency-Key', async () => {
    await post(ctx.app, tokenA, 'key-mismatch', customer(nextCpf()))
    const other = await post(ctx.app, tokenA, 'key-mismatch', customer(nextCpf()))
    expect(other.statusCode).toBe(422)
    expect(Object.keys(other.json().errors)).toEqual(['Idempotency-Key'])
  })

  it('fingerprints the method and path with the body, under a key', () => {
    const [key, other] = fingerprintKeys(['a'.repeat(32), 'b'.repeat(32)]) as [Buffer, Buffer]
    const body = customer('52998224725')
    const print = fingerprint(key, 'POST', '/customers', body)
    expect(fingerprint(key, 'POST', '/customers', { ...body })).toBe(print)
    expect(fingerprint(key, 'POST', '/shopkeepers', body)).not.toBe(print)
    expect(fingerprint(key, 'PUT', '/customers', body)).not.toBe(print)
    expect(fingerprint(key, 'POST', '/customers', { ...body, name: 'Bia' })).not.toBe(print)
    expect(fingerprint(other, 'POST', '/customers', body)).not.toBe(print)
  })

  it('replays across a signing-key rotation: the old key still matches while it verifies', async () => {
    const body = customer(nextCpf())
    const first = await post(ctx.app, tokenA, 'key-rotation', body)
    const rotated = await buildCheckedApp({
      config: {
        ...ctx.config,
        jwtKeys: [{ kid: 'k-new', secret: 'n'.repeat(40) }, ...ctx.config.jwtKeys],
      },
      db: ctx.db,
      clock,
      logger: false,
    })
    try {
      const again = await post(rotated, tokenA, 'key-rotation', body)
      expect(again.statusCode).toBe(first.statusCode)
      expect(again.headers['idempotent-replayed']).toBe('true')
      expect(again.json()).toEqual(first.json())
    } finally {
      await rotated.close()
    }
  })

  it('stores no fingerprint that a plain hash of the card-bearing body reproduces', async () => {
    // Keys in sorted order: JSON.stringify then writes the canonical JSON the fingerprint reads.
    const body = { creditCard: { cvv: '737', expiry: '1230', number: '4111111111111111' } }
    // An own-gateway partner's: another partner's card call is refused before its key is claimed.
    const { token: own } = await partnerWithToken(ctx.app, ctx.db, 'own')
    await post(ctx.app, own, 'key-card', body, '/subscriptions/999999/payment')
    const row = await ctx.db
      .selectFrom('idempotency_keys')
      .select('fingerprint')
      .where('key', '=', 'key-card')
      .executeTakeFirst()
    const plain = createHash('sha256')
      .update(`POST /subscriptions/999999/payment\n${JSON.stringify(body)}`)
      .digest('hex')
    expect(row?.fingerprint).toMatch(/^[0-9a-f]{64}$/)
    expect(row?.fingerprint).not.toBe(plain)
  })

  it('is not held by a row without an answer (a claim an earlier version left): the request runs', async () => {
    const body = customer(nextCpf())
    await retryingTransaction(ctx.db, (trx) =>
      trx
        .insertInto('idempotency_keys')
        .values({
          partner_id: partnerA,
          key: 'key-unanswered',
          fingerprint: 'f'.repeat(64),
          response_status: null,
          response_body: null,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + 60_000).toISOString(),
        })
        .execute(),
    )
    const first = await post(ctx.app, tokenA, 'key-unanswered', body)
    expect(first.statusCode).toBe(201)
    expect(first.headers['idempotent-replayed']).toBeUndefined()
    const again = await post(ctx.app, tokenA, 'key-unanswered', body)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.body).toBe(first.body)
  })

  it('keeps keys per partner', async () => {
    const document = nextCpf()
    const a = await post(ctx.app, tokenA, 'shared-key', customer(document))
    const b = await post(ctx.app, tokenB, 'shared-key', customer(document))
    expect(a.statusCode).toBe(201)
    expect(b.statusCode).toBe(201)
    expect(b.headers['idempotent-replayed']).toBeUndefined()
  })

  it('replays a refused business rule too (422 duplicate document)', async () => {
    const body = customer(nextCpf())
    await post(ctx.app, tokenA, undefined, body)
    const refused = await post(ctx.app, tokenA, 'key-422', body)
    expect(refused.statusCode).toBe(422)
    const again = await post(ctx.app, tokenA, 'key-422', body)
    expect(again.statusCode).toBe(422)
    expect(again.headers['idempotent-replayed']).toBe('true')
    // The kept answer, with this request's id (the one its X-Request-Id header carries).
    expect(again.json()).toEqual({ ...refused.json(), request_id: requestIdOf(again) })
  })

  it('forgets a key after 24 hours', async () => {
    const body = customer(nextCpf())
    await post(ctx.app, tokenA, 'key-expiry', body)
    now = new Date(now.getTime() + 24 * 60 * 60 * 1000 + 1000)
    try {
      // The old token expired with the day; log in again.
      const later = await post(ctx.app, await login(ctx.app, seededA), 'key-expiry', customer(nextCpf()))
      expect(later.statusCode).toBe(201)
      expect(later.headers['idempotent-replayed']).toBeUndefined()
    } finally {
      now = new Date('2026-11-21T12:00:00.000Z')
    }
  })

  it.each([
    ['a space inside', 'has space'],
    ['256 characters', 'k'.repeat(256)],
  ])('refuses a key with %s: 422', async (_label, key) => {
    const response = await post(ctx.app, tokenA, key, customer(nextCpf()))
    expect(response.statusCode).toBe(422)
    expect(response.json().errors).toHaveProperty(['Idempotency-Key'])
  })

  it('is ignored on GET', async () => {
    const response = await ctx.app.inject({
      url: '/plans',
      headers: { ...bearer(tokenA), 'idempotency-key': 'x' },
    })
    expect(response.statusCode).toBe(200)
    expect(response.headers['idempotent-replayed']).toBeUndefined()
  })

  it('holds across connections: concurrent first requests create once', async () => {
    const second = createDb(ctx.config.database)
    const other = await buildCheckedApp({ config: ctx.config, db: second, clock, logger: false })
    try {
      const body = customer(nextCpf())
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => post(i % 2 ? other : ctx.app, tokenA, 'key-race', body)),
      )
      const statuses = responses.map((r) => r.statusCode)
      // The later ones wait for the first to commit and replay it: none is told to retry (409).
      expect(statuses).toEqual(Array(10).fill(201))
      const created = responses.filter(
        (r) => r.statusCode === 201 && r.headers['idempotent-replayed'] !== 'true',
      )
      expect(created).toHaveLength(1)
      expect(await countCustomers(ctx.db, body.document)).toBe(1)
    } finally {
      await other.close()
      await second.destroy()
    }
  })

  it('purges expired keys', async () => {
    await post(ctx.app, tokenA, 'key-purge', customer(nextCpf()))
    // Past every key written here (the expiry test wrote one a day later).
    const later = new Date(now.getTime() + 72 * 60 * 60 * 1000)
    expect(await purgeExpiredIdempotencyKeys(ctx.db, later)).toBeGreaterThan(0)
    const left = await ctx.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('partner_id', '=', partnerA)
      .execute()
    expect(left).toEqual([])
  })
})
