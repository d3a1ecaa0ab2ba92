import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDb, type Db } from '../src/db/database.js'
import { loadDemoIfEmpty } from '../src/demo/demo.js'
import { useTestApp } from './helpers/test-app.js'
import { demoLogins } from './helpers/world.js'

// Two API processes starting together on an empty database: two connections to one file (or
// one PostgreSQL schema), each loading the demo if it finds no partner.
const ctx = useTestApp({ onDisk: true })
let second: Db
beforeAll(() => {
  second = createDb(ctx.config.database)
})
afterAll(() => second?.destroy())

describe('the demo on an empty database, loaded by two processes at once', () => {
  it('is loaded once, and only the loader gets credentials, which all work', async () => {
    const now = new Date().toISOString()
    const results = await Promise.all([
      loadDemoIfEmpty(ctx.db, ctx.config, now),
      loadDemoIfEmpty(second, ctx.config, now),
    ])
    const loaded = results.filter((result) => result !== null)
    expect(loaded).toHaveLength(1)
    const partners = await ctx.db.selectFrom('partners').select('name').execute()
    expect(partners).toHaveLength(2)
    expect(await demoLogins(ctx.app, loaded[0]?.partners ?? [])).toEqual([200, 200, 200, 200])
  })

  it('is not loaded again, nor are credentials issued, once the database has a partner', async () => {
    const credentials = async () => (await ctx.db.selectFrom('credentials').select('id').execute()).length
    const before = await credentials()
    expect(await loadDemoIfEmpty(second, ctx.config, new Date().toISOString())).toBeNull()
    expect(await credentials()).toBe(before)
  })
})
