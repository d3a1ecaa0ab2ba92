import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/app.js'
import { createDb, type Db } from '../src/db/database.js'
import { loadDemoIfEmpty } from '../src/demo/demo.js'
import { buildCheckedApp } from './helpers/test-app.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'
import { demoLogins } from './helpers/world.js'

// Two API processes starting together on an empty database: two connections to one file (or
// one PostgreSQL schema), each loading the demo if it finds no partner.
const dir = mkdtempSync(join(tmpdir(), 'amparo-demo-'))
let database: TestDatabase
let second: Db
let app: App

beforeAll(async () => {
  database = await createTestDatabase({ sqliteFile: join(dir, 'demo.sqlite') })
  second = createDb(database.config.database)
  app = await buildCheckedApp({ config: database.config, db: database.db, logger: false })
})

afterAll(async () => {
  await app?.close()
  await second?.destroy()
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
})

describe('the demo on an empty database, loaded by two processes at once', () => {
  it('is loaded once, and only the loader gets credentials, which all work', async () => {
    const now = new Date().toISOString()
    const results = await Promise.all([
      loadDemoIfEmpty(database.db, database.config, now),
      loadDemoIfEmpty(second, database.config, now),
    ])
    const loaded = results.filter((result) => result !== null)
    expect(loaded).toHaveLength(1)
    const partners = await database.db.selectFrom('partners').select('name').execute()
    expect(partners).toHaveLength(2)
    expect(await demoLogins(app, loaded[0]?.partners ?? [])).toEqual([200, 200, 200, 200])
  })

  it('is not loaded again, nor are credentials issued, once the database has a partner', async () => {
    const credentials = async () =>
      (await database.db.selectFrom('credentials').select('id').execute()).length
    const before = await credentials()
    expect(await loadDemoIfEmpty(second, database.config, new Date().toISOString())).toBeNull()
    expect(await credentials()).toBe(before)
  })
})
