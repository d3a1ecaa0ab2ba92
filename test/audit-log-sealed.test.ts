import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isPostgres } from '../src/db/database.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'

// The audit log is append-only (docs/decisions.md, Operator console: sign-in, roles and audit):
// besides UPDATE and DELETE, the statements that remove rows without either are refused too.

let t: TestDatabase
beforeAll(async () => {
  t = await createTestDatabase()
})
afterAll(() => t.drop())

const entry = {
  at: '2026-12-07T10:00:00.000Z',
  actor_label: 'cli:root',
  record_type: 'operator',
  record_id: '1',
}

async function anEntry(action: string): Promise<number> {
  const row = await retryingTransaction(t.db, (trx) =>
    trx
      .insertInto('audit_log')
      .values({ ...entry, action })
      .returning('id')
      .executeTakeFirstOrThrow(),
  )
  return row.id
}

const actionOf = async (id: number) =>
  (await t.db.selectFrom('audit_log').select('action').where('id', '=', id).executeTakeFirst())?.action

describe('the audit log refuses what would replace or empty it', () => {
  it.skipIf(!!process.env.DATABASE_URL)(
    'SQLite: INSERT OR REPLACE over an entry fails and the entry stays',
    async () => {
      expect(isPostgres(t.db)).toBe(false)
      const id = await anEntry('operator.create')
      for (const verb of [sql`insert or replace`, sql`replace`])
        await expect(
          sql`${verb} into audit_log (id, at, actor_label, action, record_type, record_id)
          values (${id}, ${entry.at}, 'someone', 'forged', 'operator', '1')`.execute(t.db),
        ).rejects.toThrow(/append-only/)
      expect(await actionOf(id)).toBe('operator.create')
      // A new entry is still written.
      expect(await actionOf(await anEntry('operator.disable'))).toBe('operator.disable')
    },
  )

  it.skipIf(!process.env.DATABASE_URL)(
    'PostgreSQL: TRUNCATE audit_log fails, directly or by cascade',
    async () => {
      expect(isPostgres(t.db)).toBe(true)
      const id = await anEntry('operator.create')
      await expect(sql`truncate audit_log`.execute(t.db)).rejects.toThrow(/append-only/)
      await expect(sql`truncate operators cascade`.execute(t.db)).rejects.toThrow(/append-only/)
      expect(await actionOf(id)).toBe('operator.create')
    },
  )

  it('UPDATE, DELETE and an upsert are refused too', async () => {
    const id = await anEntry('operator.create')
    await expect(
      retryingTransaction(t.db, (trx) => trx.updateTable('audit_log').set({ action: 'x' }).execute()),
    ).rejects.toThrow(/append-only/)
    await expect(retryingTransaction(t.db, (trx) => trx.deleteFrom('audit_log').execute())).rejects.toThrow(
      /append-only/,
    )
    await expect(
      sql`insert into audit_log (id, at, actor_label, action, record_type, record_id)
        values (${id}, ${entry.at}, 'someone', 'forged', 'operator', '1')
        on conflict (id) do update set action = excluded.action`.execute(t.db),
    ).rejects.toThrow(/append-only/)
    expect(await actionOf(id)).toBe('operator.create')
  })
})
