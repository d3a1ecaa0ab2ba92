import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Database, Db, Trx } from './database.js'
import { sqliteDialect } from './sqlite.js'
import { logSync, logSyncOf, syncsLogOnCommit } from './sqlite-log-sync.js'
import { retryingTransaction } from './transaction.js'

// Through retryingTransaction, as every write of the service on SQLite, on a file database.

let dir: string
let file: string
let db: Db
let statements: string[]

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'amparo-group-'))
  statements = []
  file = join(dir, 'db.sqlite')
  db = new Kysely<Database>({
    dialect: sqliteDialect(file).dialect,
    log: (event) => void statements.push(event.query.sql),
  }) as unknown as Db
  await sql`create table notes (id integer primary key, text text not null)`.execute(db)
  statements = []
})
afterEach(async () => {
  await db.destroy()
  rmSync(dir, { recursive: true, force: true })
})

const note = (text: string) => (trx: Trx) => sql`insert into notes (text) values (${text})`.execute(trx)
const texts = async () =>
  (await sql<{ text: string }>`select text from notes order by id`.execute(db)).rows.map((r) => r.text)
const commits = () => statements.filter((s) => s === 'commit').length

describe('write transactions of one turn', () => {
  it('commit together, each answering once the one commit is done', async () => {
    await Promise.all(['a', 'b', 'c'].map((text) => retryingTransaction(db, note(text))))
    expect(await texts()).toEqual(['a', 'b', 'c'])
    expect(commits()).toBe(1)
  })

  it('commit apart when they come in different turns', async () => {
    await retryingTransaction(db, note('a'))
    await retryingTransaction(db, note('b'))
    expect(await texts()).toEqual(['a', 'b'])
    expect(commits()).toBe(2)
  })

  it('a refused one undoes only its own writes, and its caller gets its error', async () => {
    const refusal = new Error('refused')
    const results = await Promise.allSettled([
      retryingTransaction(db, note('a')),
      retryingTransaction(db, async (trx) => {
        await note('undone')(trx)
        throw refusal
      }),
      retryingTransaction(db, note('c')),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect((results[1] as PromiseRejectedResult).reason).toBe(refusal)
    expect(await texts()).toEqual(['a', 'c'])
    expect(commits()).toBe(1)
  })

  it('one whose own statement is refused (SQLITE_BUSY) runs again, the others once', async () => {
    let refusals = 1
    const runs = { a: 0, b: 0, c: 0 }
    const run = (name: keyof typeof runs) => async (trx: Trx) => {
      runs[name] += 1
      await note(name)(trx)
      if (name === 'b' && refusals-- > 0)
        throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })
    }
    await Promise.all([run('a'), run('b'), run('c')].map((work) => retryingTransaction(db, work)))
    expect(runs).toEqual({ a: 1, b: 2, c: 1 })
    expect(await texts()).toEqual(['a', 'c', 'b'])
  })

  it('one refused because another connection holds the write lock runs again, the others once', async () => {
    const other = new BetterSqlite3(join(dir, 'db.sqlite'))
    const runs = { a: 0, b: 0, c: 0 }
    try {
      await Promise.all([
        retryingTransaction(db, async (trx) => {
          runs.b += 1
          // The other connection writes while this member does, on its first run only.
          if (runs.b === 1) other.exec('begin immediate')
          try {
            await note('b')(trx)
          } finally {
            if (other.inTransaction) other.exec('rollback')
          }
        }),
        ...(['a', 'c'] as const).map((name) =>
          retryingTransaction(db, async (trx) => {
            runs[name] += 1
            await note(name)(trx)
          }),
        ),
      ])
    } finally {
      other.close()
    }
    expect(runs).toEqual({ a: 1, b: 2, c: 1 })
    expect(await texts()).toEqual(['a', 'c', 'b'])
  })
})

describe('a member that ends the transaction', () => {
  it('fills the disk: it alone gets SQLITE_FULL, the others are written once', async () => {
    const pages = Number(
      (await sql<{ page_count: number }>`pragma page_count`.execute(db)).rows[0]?.page_count,
    )
    await sql.raw(`pragma max_page_count = ${pages + 20}`).execute(db)
    const runs = { a: 0, big: 0, c: 0 }
    const results = await Promise.allSettled([
      retryingTransaction(db, async (trx) => {
        runs.a += 1
        await note('a')(trx)
      }),
      retryingTransaction(db, async (trx) => {
        runs.big += 1
        await note('x'.repeat(1_000_000))(trx)
      }),
      retryingTransaction(db, async (trx) => {
        runs.c += 1
        await note('c')(trx)
      }),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_FULL' })
    // a's first run was undone with the transaction; c had not run; big ran again alone.
    expect(runs).toEqual({ a: 2, big: 2, c: 1 })
    expect(await texts()).toEqual(['a', 'c'])
  })
})

describe('a member that holds its group past the budget', () => {
  it('is cut off: the others commit without it, then it runs again alone', async () => {
    const events: string[] = []
    let slowRuns = 0
    const slow = retryingTransaction(db, async (trx) => {
      slowRuns += 1
      await sleep(1_000)
      events.push(`slow woke (run ${slowRuns})`)
      await note('slow')(trx)
    }).then(() => events.push('slow answered'))
    const others = ['a', 'c'].map((text) =>
      retryingTransaction(db, note(text)).then(() => events.push(`${text} answered`)),
    )
    await Promise.all([slow, ...others])
    expect(events.slice(0, 2).sort()).toEqual(['a answered', 'c answered'])
    expect(events).toContain('slow answered')
    expect(slowRuns).toBe(2)
    expect((await texts()).sort()).toEqual(['a', 'c', 'slow'])
  })

  it('is counted from its own start: two of 150 ms each, past 250 ms together, commit in one group', async () => {
    const runs: Record<string, number> = {}
    const slow = (text: string) => async (trx: Trx) => {
      runs[text] = (runs[text] ?? 0) + 1
      await sleep(150)
      await note(text)(trx)
    }
    await Promise.all(['a', 'b'].map((text) => retryingTransaction(db, slow(text))))
    expect(runs).toEqual({ a: 1, b: 1 })
    expect(await texts()).toEqual(['a', 'b'])
    expect(commits()).toBe(1)
  })
})

describe('a group', () => {
  it("takes 64 members at most: the turn's next ones commit in a group of their own", async () => {
    const many = Array.from({ length: 65 }, (_, i) => String(i))
    await Promise.all(many.map((text) => retryingTransaction(db, note(text))))
    expect(await texts()).toEqual(many)
    expect(commits()).toBe(2)
  })
})

describe('a commit', () => {
  it('answers its members once the log was synced after it, a sync off the event loop', async () => {
    const events: string[] = []
    const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(db)
    expect(rows[0]?.synchronous).toBe(1) // NORMAL: the connection does not sync at commit
    const log = logSync(file)
    syncsLogOnCommit(db, async () => {
      events.push(`sync from commit ${commits()}`)
      await log()
      events.push('synced')
    })
    await Promise.all(
      ['a', 'b'].map((text) =>
        retryingTransaction(db, note(text)).then(() => events.push(`${text} answered`)),
      ),
    )
    log.close()
    expect(events).toEqual(['sync from commit 1', 'synced', 'a answered', 'b answered'])
  })

  it("of writes that come while another group's sync runs waits for it, then commits them as one", async () => {
    const syncs: { commitsBefore: number; done: () => void }[] = []
    syncsLogOnCommit(
      db,
      logSyncOf(() => new Promise<void>((done) => syncs.push({ commitsBefore: commits(), done }))),
    )
    const answered: string[] = []
    const write = (text: string) => retryingTransaction(db, note(text)).then(() => answered.push(text))
    const first = write('a')
    await until(() => syncs.length === 1)
    const later = [write('b')]
    await sleep(20) // another turn of the event loop, another request
    later.push(write('c'))
    await sleep(50)
    expect(commits()).toBe(1) // b and c wait for a's sync: they could not answer before the next
    syncs[0]?.done()
    await first
    await until(() => syncs.length === 2)
    expect(commits()).toBe(2) // b and c in one commit, one sync
    expect(syncs[1]?.commitsBefore).toBe(2)
    expect(answered).toEqual(['a'])
    syncs[1]?.done()
    await Promise.all(later)
    expect(answered).toEqual(['a', 'b', 'c'])
    expect(await texts()).toEqual(['a', 'b', 'c'])
  })

  it('whose log cannot be synced fails its members: nothing is answered as kept', async () => {
    syncsLogOnCommit(db, async () => {
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' })
    })
    await expect(retryingTransaction(db, note('a'))).rejects.toThrow('EIO')
  })
})

const until = async (done: () => boolean) => {
  for (const deadline = Date.now() + 10_000; !done(); await sleep(5))
    if (Date.now() > deadline) throw new Error('timed out')
}
