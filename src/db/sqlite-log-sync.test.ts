import { mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { createDb } from './database.js'
import { logSyncOf } from './sqlite-log-sync.js'
import { retryingTransaction } from './transaction.js'

const dir = mkdtempSync(join(tmpdir(), 'amparo-log-sync-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("the service's SQLite connection", () => {
  it('answers a write only once its log was synced through the file system', async () => {
    const file = join(dir, 'service.sqlite')
    const db = createDb({ kind: 'sqlite', file })
    try {
      const write = (text: string) =>
        retryingTransaction(db, (trx) => sql`insert into notes (text) values (${text})`.execute(trx))
      await retryingTransaction(db, (trx) => sql`create table notes (text text)`.execute(trx))
      await write('kept')
      // The log out of the sync's reach (SQLite keeps writing to it): the write is not answered.
      renameSync(`${file}-wal`, `${file}-elsewhere`)
      await expect(write('unsynced')).rejects.toMatchObject({ code: 'ENOENT' })
      renameSync(`${file}-elsewhere`, `${file}-wal`)
      await write('synced again')
      const { rows } = await sql<{ text: string }>`select text from notes`.execute(db)
      expect(rows.map((row) => row.text)).toEqual(['kept', 'unsynced', 'synced again'])
    } finally {
      await db.destroy()
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
