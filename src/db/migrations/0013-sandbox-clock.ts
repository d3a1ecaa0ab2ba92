import type { Kysely } from 'kysely'
import { columnTypes } from './column-types.js'

/**
 * The sandbox test clock (README, Try the recurrence in the sandbox), on the partner's row so that the principal lookup every
 * authenticated request makes reads it at no extra cost: how far the partner's clock is ahead of
 * real time, and until when (real time) an advance in progress holds it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema
    .alterTable('partners')
    .addColumn('clock_offset_seconds', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema.alterTable('partners').addColumn('clock_advancing_until', t.timestamp).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('partners').dropColumn('clock_advancing_until').execute()
  await db.schema.alterTable('partners').dropColumn('clock_offset_seconds').execute()
}
