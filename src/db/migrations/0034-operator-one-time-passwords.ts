import type { Kysely } from 'kysely'
import { columnTypes, falseValue } from './column-types.js'

/**
 * Whether an operator's password is a one-time one (README, Operator console): generated at its
 * creation or by a reset, known to whoever handed it over, so the operator must replace it at its
 * first sign-in before the session opens anything else. Existing passwords are the operators' own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema
    .alterTable('operators')
    .addColumn('password_one_time', t.bool, (c) => c.notNull().defaultTo(falseValue(db)))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('operators').dropColumn('password_one_time').execute()
}
