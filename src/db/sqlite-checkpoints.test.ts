import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { createDb } from './database.js'
import { checkpointOnAThread } from './sqlite-checkpoints.js'

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

describe('under commits that never pause', () => {
  it('the log starts over once it holds the restart size, instead of growing for as long as they last', {
    timeout: 120_000,
  }, async () => {
    const file = join(dir, 'steady.sqlite')
    const raw = new BetterSqlite3(file)
    raw.pragma('journal_mode = WAL')
    raw.pragma('synchronous = NORMAL')
    raw.pragma('busy_timeout = 5000')
    // 1 MiB (the service's is 16 MiB), and a pass every 25 ms rather than 250: the 128 MiB below
    // then span many passes however fast this machine writes them.
    const stop = checkpointOnAThread(raw, file, { restartPages: 256, everyMs: 25 })
    try {
      await until(() => raw.pragma('wal_autocheckpoint', { simple: true }) === 0)
      raw.exec('create table filler (bytes blob not null)')
      const insert = raw.prepare('insert into filler values (randomblob(4000))')
      const commit = raw.transaction(() => {
        for (let i = 0; i < 4; i++) insert.run()
      })
      // The log's header carries a new salt each time the log starts over.
      const salt = () => {
        const header = Buffer.alloc(4)
        const fd = openSync(`${file}-wal`, 'r')
        readSync(fd, header, 0, 4, 16)
        closeSync(fd)
        return header.toString('hex')
      }
      const salts = new Set([salt()])
      // Without restarts the log would hold all of it: 128 MiB is over a hundred restart sizes.
      for (let written = 0; salts.size < 3; written += 100 * 4096) {
        if (written > 128 * 2 ** 20)
          throw new Error(`the log started over ${salts.size - 1} times in 128 MiB`)
        // A busy service's turn: commits back to back, then whatever else is ready.
        for (let i = 0; i < 25; i++) commit()
        salts.add(salt())
        await new Promise((resolve) => setImmediate(resolve))
      }
    } finally {
      stop()
      raw.close()
    }
  })
})
