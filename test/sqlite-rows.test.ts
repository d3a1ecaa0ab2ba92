import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'

// The SQLite adapter reads rows as arrays and builds the objects itself (src/db/sqlite.ts): the
// rows must be exactly what the driver's own objects were.
let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database?.drop())

describe.skipIf(Boolean(process.env.DATABASE_URL))('SQLite rows', () => {
  it('keeps every type, null and the column names as given', async () => {
    const { rows } =
      await sql`select 1 as "int", 2.5 as "real", 'é' as "text", null as "nothing", x'00ff' as "blob", 3 as "with space"`.execute(
        database.db,
      )
    expect(rows).toEqual([
      { int: 1, real: 2.5, text: 'é', nothing: null, blob: Buffer.from([0, 255]), 'with space': 3 },
    ])
  })

  it('keeps the last of two columns with one name, as the driver does', async () => {
    const { rows } = await sql`select 1 as "a", 2 as "a"`.execute(database.db)
    expect(rows).toEqual([{ a: 2 }])
  })

  it('never lets a column named __proto__ replace the prototype', async () => {
    const { rows } = await sql`select 1 as "__proto__", 2 as "b"`.execute(database.db)
    const [row] = rows as Record<string, unknown>[]
    expect(row?.b).toBe(2)
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype)
  })

  it('returns the rows of an insert … returning', async () => {
    const now = new Date().toISOString()
    const rows = await database.db
      .insertInto('brands')
      .values([
        { name: 'Um', created_at: now },
        { name: 'Dois', created_at: now },
      ])
      .returning(['name'])
      .execute()
    expect(rows).toEqual([{ name: 'Um' }, { name: 'Dois' }])
  })

  it('streams rows as objects too', async () => {
    const streamed = []
    for await (const row of database.db.selectFrom('brands').select(['id', 'name']).orderBy('id').stream()) {
      streamed.push(row)
    }
    expect(streamed).toEqual(
      await database.db.selectFrom('brands').select(['id', 'name']).orderBy('id').execute(),
    )
    expect(streamed.length).toBeGreaterThan(0)
    expect(Object.keys(streamed[0] as object)).toEqual(['id', 'name'])
  })
})
