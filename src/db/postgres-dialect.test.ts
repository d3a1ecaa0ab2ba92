import { randomBytes } from 'node:crypto'
import { type DatabaseIntrospector, type Kysely, PostgresIntrospector, sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/helpers/test-db.js'
import { loadConfig } from '../config.js'
import { createDb, type Database } from './database.js'
import { migrateToLatest } from './migrate.js'

// What lets several processes, or several schemas of one database,
// migrate at once: the migrator reads and locks the connection's schema only.
describe.skipIf(!process.env.DATABASE_URL)('the PostgreSQL migrator', () => {
  let database: TestDatabase
  let admin: pg.Client
  const other = `test_other_${randomBytes(6).toString('hex')}`
  const schema = async () =>
    (await sql<{ name: string }>`select current_schema() as name`.execute(database.db)).rows[0]?.name

  beforeAll(async () => {
    database = await createTestDatabase()
    // Another client of the file's database (a copy of the run's template).
    admin = new pg.Client({ connectionString: database.env.DATABASE_URL })
    await admin.connect()
    await admin.query(
      `create schema ${other}; create table ${other}.plans (id serial primary key, name text)`,
    )
  })
  afterAll(async () => {
    await admin?.query(`drop schema if exists ${other} cascade`)
    await admin?.end()
    await database?.drop()
  })

  it("lists its own schema's tables only, and the migration tables when asked", async () => {
    const current = await schema()
    const tables = await database.db.introspection.getTables()
    expect(tables.map((t) => t.schema)).toEqual(tables.map(() => current))
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['plans', 'subscriptions']))
    expect(tables.map((t) => t.name)).not.toContain('kysely_migration')
    const plans = tables.find((t) => t.name === 'plans')
    expect(plans?.columns.find((c) => c.name === 'id')).toMatchObject({
      isAutoIncrementing: true,
      isNullable: false,
    })
    const all = await database.db.introspection.getTables({ withInternalKyselyTables: true })
    expect(all.map((t) => t.name)).toEqual(
      expect.arrayContaining(['kysely_migration', 'kysely_migration_lock']),
    )
  })

  it('reads one snapshot of the catalog: a table dropped by another client meanwhile does not fail it', async () => {
    const current = await schema()
    await admin.query(`create table ${current}.doomed (id serial primary key)`)
    // Inside a repeatable read transaction the catalog is read as of its first statement: the
    // table is still listed after the other client dropped it, as a migrator's read meets it
    // when the drop commits during its query.
    const listedAfterDrop = (introspector: (trx: Kysely<Database>) => DatabaseIntrospector) =>
      database.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          await sql`select 1`.execute(trx)
          await admin.query(`drop table if exists ${current}.doomed`)
          return (await introspector(trx).getTables()).map((t) => t.name)
        })
    expect(await listedAfterDrop((trx) => trx.introspection)).toContain('doomed')
    // Kysely's own introspector looks each table up again by name, and fails.
    await admin.query(`create table ${current}.doomed (id serial primary key)`)
    await expect(listedAfterDrop((trx) => new PostgresIntrospector(trx))).rejects.toThrow(/does not exist/)
  })

  it("migrates a schema while another schema's migration holds its lock", async () => {
    const fresh = `test_fresh_${randomBytes(6).toString('hex')}`
    await admin.query(`create schema ${fresh}`)
    const own = database.env.DATABASE_URL as string
    const separator = own.includes('?') ? '&' : '?'
    const options = encodeURIComponent(`-c search_path=${fresh}`)
    const db = createDb(
      loadConfig({ ...database.env, DATABASE_URL: `${own}${separator}options=${options}` }).database,
    )
    try {
      await database.db.connection().execute(async (connection) => {
        const adapter = connection.getExecutor().adapter
        const lock = { lockTable: 'kysely_migration_lock', lockRowId: 'migration_lock' }
        await adapter.acquireMigrationLock(connection, lock)
        try {
          expect(await migrateToLatest(db)).toContain('0001-foundation')
        } finally {
          await adapter.releaseMigrationLock(connection, lock)
        }
      })
    } finally {
      await db.destroy()
      await admin.query(`drop schema ${fresh} cascade`)
    }
  })
})
