import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * Money columns (integer cents) become 64-bit on PostgreSQL, as SQLite's integers always were: a
 * 32-bit column stops at R$ 21,474,836.47, past which a contract answered 500 on PostgreSQL only
 * (an LMI the catalog and the partner's range allowed). pg reads int8 as a number (db/postgres.ts);
 * amounts stay far below 2^53 cents. The change rewrites these tables once, under a lock.
 */
const MONEY: Record<string, string[]> = {
  models: ['default_lmi'],
  subscriptions: ['lmi', 'monthly_premium', 'franchise'],
  installments: ['amount'],
  payments: ['amount'],
  annual_plans: ['lmi', 'premium'],
  annual_plan_cancellations: ['refund_amount'],
}

async function retype(db: Kysely<unknown>, type: 'bigint' | 'integer'): Promise<void> {
  if (!isPostgres(db)) return
  for (const [table, columns] of Object.entries(MONEY)) {
    // One statement per table: PostgreSQL rewrites it once for all its columns.
    const changes = columns.map((column) => sql`alter column ${sql.ref(column)} type ${sql.raw(type)}`)
    await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db)
  }
}

export const up = (db: Kysely<unknown>) => retype(db, 'bigint')
export const down = (db: Kysely<unknown>) => retype(db, 'integer')
