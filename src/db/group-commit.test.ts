import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kysely, sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Database, Db, Trx } from './database.js'
import { sqliteDialect } from './sqlite.js'
import { retryingTransaction } from './transaction.js'

// Through retryingTransaction, as every write of the service on SQLite.

let dir: string
let db: Db
let statements: string[]

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'amparo-group-'))
  statements = []
  db = new Kysely<Database>({
    dialect: sqliteDialect(join(dir, 'db.sqlite')).dialect,
    log: (event) => void statements.push(event.query.sql),
  })
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

  it('one the database refuses runs again with all the others, each written once', async () => {
    let refusals = 1
    const runs = { a: 0, b: 0 }
    await Promise.all([
      retryingTransaction(db, async (trx) => {
        runs.a += 1
        await note('a')(trx)
      }),
      retryingTransaction(db, async (trx) => {
        runs.b += 1
        await note('b')(trx)
        if (refusals-- > 0) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })
      }),
    ])
    expect(runs).toEqual({ a: 2, b: 2 })
    // Each ran again after its own random wait, so in either order.
    expect((await texts()).sort()).toEqual(['a', 'b'])
  })
})
