import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { createDb } from './database.js'
import { logSync, logSyncAfterCommit, logSyncOf } from './sqlite-log-sync.js'
import { retryingTransaction } from './transaction.js'

const dir = mkdtempSync(join(tmpdir(), 'amparo-log-sync-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("the service's SQLite connection", () => {
  it('commits without syncing, and its writes answer after the log sync', async () => {
    const file = join(dir, 'service.sqlite')
    const db = createDb({ kind: 'sqlite', file })
    try {
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(db)
      expect(rows[0]?.synchronous).toBe(1) // NORMAL
      expect(logSyncAfterCommit(db)).toBeDefined()
      await retryingTransaction(db, (trx) => sql`create table notes (text text)`.execute(trx))
      await retryingTransaction(db, (trx) => sql`insert into notes (text) values ('kept')`.execute(trx))
      expect((await sql<{ text: string }>`select text from notes`.execute(db)).rows).toEqual([
        { text: 'kept' },
      ])
    } finally {
      await db.destroy()
    }
  })
})

describe("a database file's log sync", () => {
  it('syncs the log SQLite wrote, and fails where there is none: nothing is answered as kept', async () => {
    const file = join(dir, 'synced.sqlite')
    const raw = new BetterSqlite3(file)
    raw.pragma('journal_mode = WAL')
    const sync = logSync(file)
    try {
      await expect(sync()).rejects.toMatchObject({ code: 'ENOENT' }) // no log yet
      raw.exec('create table notes (text text)')
      await sync()
      raw.exec("insert into notes values ('synced')")
      await sync()
    } finally {
      sync.close()
      raw.close()
    }
  })
})

describe('a log sync', () => {
  it('serves every call made while the one before it ran, one sync in flight at most', async () => {
    const runs: (() => void)[] = []
    let inFlight = 0
    let most = 0
    const sync = logSyncOf(
      () =>
        new Promise<void>((done) => {
          most = Math.max(most, ++inFlight)
          runs.push(() => {
            inFlight--
            done()
          })
        }),
    )
    const first = sync()
    const waiting = [sync(), sync(), sync()]
    expect(runs).toHaveLength(1)
    runs[0]?.()
    await first
    await new Promise((resolve) => setImmediate(resolve))
    expect(runs).toHaveLength(2) // the three calls made meanwhile share the second
    runs[1]?.()
    await Promise.all(waiting)
    expect(runs).toHaveLength(2)
    expect(most).toBe(1)
  })
})
