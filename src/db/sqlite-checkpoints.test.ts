import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { createDb } from './database.js'

const dir = mkdtempSync(join(tmpdir(), 'amparo-checkpoints-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function until(check: () => boolean, deadlineMs = 20_000, refresh?: () => Promise<void>) {
  const end = Date.now() + deadlineMs
  for (await refresh?.(); !check(); await refresh?.()) {
    if (Date.now() > end) throw new Error('deadline passed')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('the write-ahead log of a database file', () => {
  it('is copied into the database by a thread, not by the commits', async () => {
    const file = join(dir, 'checkpoints.sqlite')
    const db = createDb({ kind: 'sqlite', file })
    try {
      // The thread starts a second after the connection opens; the commits then checkpoint no more.
      let setting = -1
      await until(
        () => setting === 0,
        20_000,
        async () => {
          const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)
          setting = Number(rows[0]?.wal_autocheckpoint)
        },
      )
      await sql`create table filler (text text not null)`.execute(db)
      const before = statSync(file).size
      // ≈ 4 MiB in one commit: the log holds it until a checkpoint copies it into the file.
      await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 1000)
                insert into filler select hex(randomblob(2048)) from n`.execute(db)
      await until(() => statSync(file).size >= before + 4_000_000)
    } finally {
      await db.destroy()
    }
    expect(existsSync(`${file}-wal`)).toBe(false)
  })

  it('is gone after a close, the thread stopped (or never started) first: the file alone holds the database', async () => {
    const file = join(dir, 'closed.sqlite')
    const db = createDb({ kind: 'sqlite', file })
    await sql`create table t (n integer)`.execute(db)
    await sql`insert into t values (1), (2)`.execute(db)
    expect(existsSync(`${file}-wal`)).toBe(true)
    await db.destroy()
    expect(existsSync(`${file}-wal`)).toBe(false)
  })
})
