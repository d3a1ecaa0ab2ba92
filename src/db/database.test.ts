import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/helpers/test-db.js'
import type { Reader } from './database.js'
import { retryingTransaction } from './transaction.js'

let database: TestDatabase
const AT = '2026-11-21T12:00:00.000Z'

beforeAll(async () => {
  database = await createTestDatabase()
  await retryingTransaction(database.db, (trx) =>
    trx
      .insertInto('brands')
      .values([
        { name: 'Alfa', created_at: AT },
        { name: 'Beta', created_at: AT },
      ])
      .execute(),
  )
})
afterAll(() => database?.drop())

const brands = (db: Reader, names: string[]) =>
  db.selectFrom('brands').select('name').where('name', 'in', names).orderBy('name').execute()

describe('a transaction', () => {
  it('sees its own writes, and a failure undoes every one', async () => {
    const failure = retryingTransaction(database.db, async (trx) => {
      await trx.insertInto('brands').values({ name: 'Gama', created_at: AT }).execute()
      expect(await brands(trx, ['Alfa', 'Gama'])).toEqual([{ name: 'Alfa' }, { name: 'Gama' }])
      throw new Error('after the writes')
    })
    await expect(failure).rejects.toThrow('after the writes')
    expect(await brands(database.db, ['Gama'])).toEqual([])
  })

  it('is never seen by a read on the database while it is open', async () => {
    let read: Promise<{ name: string }[]> | undefined
    const failure = retryingTransaction(database.db, async (trx) => {
      await trx.insertInto('brands').values({ name: 'Delta', created_at: AT }).execute()
      // Not awaited here: on SQLite it waits for the transaction, which holds the one connection.
      read = brands(database.db, ['Alfa', 'Delta'])
      expect(await brands(trx, ['Alfa', 'Delta'])).toEqual([{ name: 'Alfa' }, { name: 'Delta' }])
      throw new Error('roll back')
    })
    await expect(failure).rejects.toThrow('roll back')
    expect(await read).toEqual([{ name: 'Alfa' }])
  })
})

describe.skipIf(!process.env.DATABASE_URL)('on PostgreSQL', () => {
  it('runs a query with parameters as a named statement, prepared once on the connection', async () => {
    const statements = await database.db.connection().execute(async (connection) => {
      const beta = () => connection.selectFrom('brands').select('id').where('name', '=', 'Beta').execute()
      for (let i = 0; i < 3; i++) expect(await beta()).toHaveLength(1)
      // Not named: without parameters, or with its columns as `*`.
      await sql`select id from brands where name = 'Alfa'`.execute(connection)
      await connection.selectFrom('brands').selectAll().where('name', '=', 'Alfa').execute()
      const { rows } = await sql<{ name: string; statement: string }>`
        select name, statement from pg_prepared_statements
        where statement like ${'%from "brands" where "name" = $1'} or statement like ${'%Alfa%'}`.execute(
        connection,
      )
      return rows
    })
    expect(statements).toEqual([
      {
        name: expect.stringMatching(/^amparo_\d+$/),
        statement: 'select "id" from "brands" where "name" = $1',
      },
    ])
  })
})
