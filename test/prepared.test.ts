import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db, Trx } from '../src/db/database.js'
import { insertReturningId, insertRows, prepared } from '../src/db/prepared.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
  const now = new Date().toISOString()
  await database.db
    .insertInto('brands')
    .values([
      { name: 'Alfa', created_at: now },
      { name: 'Beta', created_at: now },
      { name: 'Gama', created_at: now },
    ])
    .execute()
})
afterAll(() => database?.drop())

// Two arguments, one constant between them: each call must run with its own values.
const brandsNamed = prepared((db: Db, first: string, second: string) =>
  db
    .selectFrom('brands')
    .select('name')
    .where('name', '!=', 'Beta')
    .where((eb) => eb.or([eb('name', '=', first), eb('name', '=', second)]))
    .orderBy('name'),
)

/**
 * Inserts the brand Delta in a transaction, runs `meanwhile` inside it, then rolls it back. Only
 * that rollback is swallowed: any other failure (an insert refused) fails the test.
 */
async function withDeltaRolledBack(meanwhile: (trx: Trx) => Promise<void> | void) {
  await database.db
    .transaction()
    .execute(async (trx) => {
      await trx.insertInto('brands').values({ name: 'Delta', created_at: new Date().toISOString() }).execute()
      await meanwhile(trx)
      throw new Error('roll back')
    })
    .catch((error: Error) => {
      if (error.message !== 'roll back') throw error
    })
}

describe('prepared', () => {
  it('runs the query compiled once with each call’s arguments', async () => {
    expect(await brandsNamed(database.db, 'Alfa', 'Gama')).toEqual([{ name: 'Alfa' }, { name: 'Gama' }])
    expect(await brandsNamed(database.db, 'Gama', 'Nenhuma')).toEqual([{ name: 'Gama' }])
    // Beta is excluded: the constant compiled in the first call still applies.
    expect(await brandsNamed(database.db, 'Beta', 'Alfa')).toEqual([{ name: 'Alfa' }])
  })

  it('runs inside a transaction and sees its uncommitted rows', async () => {
    await withDeltaRolledBack(async (trx) => {
      expect(await brandsNamed(trx, 'Delta', 'Alfa')).toEqual([{ name: 'Alfa' }, { name: 'Delta' }])
    })
    expect(await brandsNamed(database.db, 'Delta', 'Alfa')).toEqual([{ name: 'Alfa' }])
  })

  it('called on the database while another caller’s transaction is open, never sees its writes', async () => {
    let read: Promise<{ name: string }[]> | undefined
    await withDeltaRolledBack(() => {
      // Not awaited here: on SQLite it waits for the transaction, which holds the one connection.
      read = brandsNamed(database.db, 'Delta', 'Alfa')
    })
    expect(await read).toEqual([{ name: 'Alfa' }])
  })
})

describe('compiled inserts', () => {
  const AT = '2026-11-21T12:00:00.000Z'
  const models = (names: string[]) =>
    database.db
      .selectFrom('models')
      .select(['name', 'default_lmi', 'active'])
      .where('name', 'in', names)
      .orderBy('name')
      .execute()
  const truthy = (r: { name: string; default_lmi: number; active: unknown }) => ({
    ...r,
    active: Boolean(r.active),
  })

  it('write each call’s own rows, whatever the row count, booleans included', async () => {
    const brand = await insertReturningId(database.db, 'brands', { name: 'Épsilon', created_at: AT })
    const other = await insertReturningId(database.db, 'brands', { name: 'Zeta', created_at: AT })
    expect(other).toBeGreaterThan(brand)
    const row = (name: string, lmi: number, active: boolean) => ({
      brand_id: brand,
      name,
      default_lmi: lmi,
      active,
      created_at: AT,
    })
    await insertRows(database.db, 'models', [row('M1', 100, true), row('M2', 200, false)])
    await insertRows(database.db, 'models', [row('M3', 300, false), row('M4', 400, true)])
    await insertRows(database.db, 'models', [row('M5', 500, true)])
    expect((await models(['M1', 'M2', 'M3', 'M4', 'M5'])).map(truthy)).toEqual([
      { name: 'M1', default_lmi: 100, active: true },
      { name: 'M2', default_lmi: 200, active: false },
      { name: 'M3', default_lmi: 300, active: false },
      { name: 'M4', default_lmi: 400, active: true },
      { name: 'M5', default_lmi: 500, active: true },
    ])
  })

  it('take rows of different columns, or with expressions, through Kysely as before', async () => {
    const brand = await insertReturningId(database.db, 'brands', { name: 'Eta', created_at: AT })
    const base = { brand_id: brand, default_lmi: 1, created_at: AT }
    // The second row sets its id: not the first row's shape.
    await insertRows(database.db, 'models', [
      { ...base, name: 'N1', active: false },
      { ...base, name: 'N2', active: true, id: 900_000 },
    ])
    await insertRows(database.db, 'models', [
      { ...base, name: 'N3', active: false },
      { ...base, name: sql<string>`${'N'} || ${'4'}` as unknown as string, active: false },
    ])
    const n2 = await database.db.selectFrom('models').select('id').where('name', '=', 'N2').execute()
    expect(n2).toEqual([{ id: 900_000 }])
    expect((await models(['N1', 'N2', 'N3', 'N4'])).map(truthy)).toEqual([
      { name: 'N1', default_lmi: 1, active: false },
      { name: 'N2', default_lmi: 1, active: true },
      { name: 'N3', default_lmi: 1, active: false },
      { name: 'N4', default_lmi: 1, active: false },
    ])
  })
})

describe('prepared statements and compiled inserts in the service’s transactions', () => {
  const AT = '2026-11-21T12:00:00.000Z'

  it('run in the transaction: its reads see its writes, and a failure undoes every one', async () => {
    const failure = retryingTransaction(database.db, async (trx) => {
      const id = await insertReturningId(trx, 'brands', { name: 'Teta', created_at: AT })
      await insertRows(trx, 'brands', [
        { name: 'Iota', created_at: AT },
        { name: 'Kappa', created_at: AT },
      ])
      expect(id).toBeGreaterThan(0)
      expect(await brandsNamed(trx, 'Teta', 'Iota')).toEqual([{ name: 'Iota' }, { name: 'Teta' }])
      throw new Error('after the writes')
    })
    await expect(failure).rejects.toThrow('after the writes')
    expect(await brandsNamed(database.db, 'Teta', 'Kappa')).toEqual([])
    const left = await database.db
      .selectFrom('brands')
      .select('name')
      .where('name', 'in', ['Teta', 'Iota', 'Kappa'])
      .execute()
    expect(left).toEqual([])
  })

  it('are never seen by a read on the database while it is open', async () => {
    let read: Promise<{ name: string }[]> | undefined
    const failure = retryingTransaction(database.db, async (trx) => {
      await insertRows(trx, 'brands', [{ name: 'Lambda', created_at: AT }])
      // Not awaited here: on SQLite it waits for the transaction, which holds the one connection.
      read = brandsNamed(database.db, 'Lambda', 'Alfa')
      expect(await brandsNamed(trx, 'Lambda', 'Alfa')).toEqual([{ name: 'Alfa' }, { name: 'Lambda' }])
      throw new Error('roll back')
    })
    await expect(failure).rejects.toThrow('roll back')
    expect(await read).toEqual([{ name: 'Alfa' }])
  })
})

describe.skipIf(!process.env.DATABASE_URL)('prepared, on PostgreSQL', () => {
  it('runs as a named statement, prepared once on the connection and reused', async () => {
    const statements = await database.db.connection().execute(async (connection) => {
      for (let i = 0; i < 3; i++) {
        expect(await brandsNamed(connection, 'Alfa', 'Gama')).toEqual([{ name: 'Alfa' }, { name: 'Gama' }])
      }
      // Other statements on the same connection are not prepared: only registered texts are.
      await connection.selectFrom('brands').select('id').where('name', '=', 'Alfa').execute()
      const { rows } = await sql<{ name: string; statement: string }>`
        select name, statement from pg_prepared_statements`.execute(connection)
      return rows
    })
    expect(statements).toHaveLength(1)
    expect(statements[0]?.name).toMatch(/^amparo_\d+$/)
    expect(statements[0]?.statement).toContain('"brands"')
  })
})
