import { type Kysely, sql } from 'kysely'

/**
 * Columns that stay null on most rows for a long time (a policy number and its certificate code
 * arrive with the first payment; a second serial number exists on few phones) are indexed only
 * where they hold a value: a contract's insert then writes no entry into these three indexes
 * (docs/benchmarks.md, Against a9367e9). Look-ups by value (`= ?`) still use them.
 */
const PARTIAL: [name: string, table: string, column: string, unique: boolean][] = [
  ['subscriptions_policy_number_unique', 'subscriptions', 'policy_number', true],
  ['subscriptions_certificate_code_unique', 'subscriptions', 'certificate_code', true],
  ['subscriptions_second_serial_idx', 'subscriptions', 'second_serial_number', false],
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, table, column, unique] of PARTIAL) {
    await db.schema.dropIndex(name).execute()
    const index = db.schema.createIndex(name).on(table).column(column).where(sql.ref(column), 'is not', null)
    await (unique ? index.unique() : index).execute()
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name, table, column, unique] of PARTIAL) {
    await db.schema.dropIndex(name).execute()
    const index = db.schema.createIndex(name).on(table).column(column)
    await (unique ? index.unique() : index).execute()
  }
}
