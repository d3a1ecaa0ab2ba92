import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/helpers/test-db.js'
import type { Reader } from './database.js'
import { insertReturningId, insertRows, PreparedMisuse, prepared } from './prepared.js'
import { retryingTransaction } from './transaction.js'

let database: TestDatabase
const AT = '2026-11-21T12:00:00.000Z'

beforeAll(async () => {
  database = await createTestDatabase()
  await retryingTransaction(database.db, (trx) =>
    insertRows(trx, 'brands', [
      { name: 'Alfa', created_at: AT },
      { name: 'Beta', created_at: AT },
      { name: 'Gama', created_at: AT },
    ]),
  )
})
afterAll(() => database?.drop())

describe('prepared()', () => {
  it('runs a builder that takes its arguments as values with each call’s arguments', async () => {
    const named = prepared((db: Reader, name: string, count: number) =>
      db.selectFrom('brands').select('name').where('name', '>=', name).orderBy('name').limit(count),
    )
    expect(await named(database.db, 'Beta', 1)).toEqual([{ name: 'Beta' }])
    expect(await named(database.db, 'Alfa', 2)).toEqual([{ name: 'Alfa' }, { name: 'Beta' }])
    // Inside a transaction (on SQLite not read at once on the connection), the same statement.
    const inTransaction = await retryingTransaction(database.db, (trx) => named(trx, 'Gama', 5))
    expect(inTransaction).toEqual([{ name: 'Gama' }])
  })

  it('passes an argument used twice, constants of the builder and a null argument', async () => {
    const either = prepared((db: Reader, first: string, second: string | null) =>
      db
        .selectFrom('brands')
        .select('name')
        .where((eb) =>
          eb.or([eb('name', '=', first), eb('name', '=', second), eb('name', 'in', [first, 'Gama'])]),
        )
        .orderBy('name'),
    )
    expect(await either(database.db, 'Alfa', null)).toEqual([{ name: 'Alfa' }, { name: 'Gama' }])
    expect(await either(database.db, 'Alfa', 'Beta')).toEqual([
      { name: 'Alfa' },
      { name: 'Beta' },
      { name: 'Gama' },
    ])
  })

  it('throws at the first call when the builder compares an argument in JavaScript', async () => {
    const misuse = prepared((db: Reader, count: number) =>
      count > 3 ? db.selectFrom('brands').select('name') : db.selectFrom('brands').select('id'),
    )
    await expect(misuse(database.db, 5)).rejects.toThrow(PreparedMisuse)
  })

  it('throws when the builder computes with an argument', async () => {
    const page = prepared((db: Reader, size: number) =>
      db
        .selectFrom('brands')
        .select('name')
        .limit(size + 1),
    )
    await expect(page(database.db, 5)).rejects.toThrow(PreparedMisuse)
    const capped = prepared((db: Reader, size: number) =>
      db.selectFrom('brands').select('name').limit(Math.min(size, 50)),
    )
    await expect(capped(database.db, 5)).rejects.toThrow(PreparedMisuse)
    const formatted = prepared((db: Reader, name: string) =>
      db.selectFrom('brands').select('name').where('name', 'like', `${name}%`),
    )
    await expect(formatted(database.db, 'Al')).rejects.toThrow(PreparedMisuse)
  })

  it('throws when the builder branches on an argument’s truth, nullness or default', async () => {
    const truthy = prepared((db: Reader, name: string | null) => {
      const query = db.selectFrom('brands').select('name')
      return name ? query.where('name', '=', name) : query
    })
    await expect(truthy(database.db, 'Alfa')).rejects.toThrow(PreparedMisuse)
    const defaulted = prepared((db: Reader, size: number | null) =>
      db
        .selectFrom('brands')
        .select('name')
        .limit(size ?? 10),
    )
    await expect(defaulted(database.db, null)).rejects.toThrow(PreparedMisuse)
    const read = prepared((db: Reader, names: string) =>
      db.selectFrom('brands').select('name').limit(names.length),
    )
    await expect(read(database.db, 'Alfa')).rejects.toThrow(PreparedMisuse)
  })

  it('throws when called with another number of arguments, or with a list for one', async () => {
    const byNames = prepared((db: Reader, ...names: string[]) =>
      db.selectFrom('brands').select('name').where('name', 'in', names),
    )
    expect(await byNames(database.db, 'Alfa')).toEqual([{ name: 'Alfa' }])
    await expect(byNames(database.db, 'Alfa', 'Beta')).rejects.toThrow(PreparedMisuse)
    const byName = prepared((db: Reader, name: string | string[]) =>
      db.selectFrom('brands').select('name').where('name', 'in', name),
    )
    await expect(byName(database.db, ['Alfa', 'Beta'])).rejects.toThrow(PreparedMisuse)
  })
})

describe('insertRows()', () => {
  it('inserts rows of one shape, and rows of several, and answers an id', async () => {
    const id = await retryingTransaction(database.db, async (trx) => {
      await insertRows(trx, 'brands', [{ name: 'Delta', created_at: AT }])
      return insertReturningId(trx, 'brands', { name: 'Épsilon', created_at: AT })
    })
    const row = await database.db.selectFrom('brands').select('name').where('id', '=', id).executeTakeFirst()
    expect(row).toEqual({ name: 'Épsilon' })
  })
})
