import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../src/db/database.js'
import { prepared } from '../src/db/prepared.js'
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

describe('prepared', () => {
  it('runs the query compiled once with each call’s arguments', async () => {
    expect(await brandsNamed(database.db, 'Alfa', 'Gama')).toEqual([{ name: 'Alfa' }, { name: 'Gama' }])
    expect(await brandsNamed(database.db, 'Gama', 'Nenhuma')).toEqual([{ name: 'Gama' }])
    // Beta is excluded: the constant compiled in the first call still applies.
    expect(await brandsNamed(database.db, 'Beta', 'Alfa')).toEqual([{ name: 'Alfa' }])
  })

  it('runs inside a transaction and sees its uncommitted rows', async () => {
    await database.db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('brands').values({ name: 'Delta', created_at: 'x' }).execute()
        expect(await brandsNamed(trx, 'Delta', 'Alfa')).toEqual([{ name: 'Alfa' }, { name: 'Delta' }])
        throw new Error('roll back')
      })
      .catch(() => {})
    expect(await brandsNamed(database.db, 'Delta', 'Alfa')).toEqual([{ name: 'Alfa' }])
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
