import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely'
import { isPostgres } from './database.js'
import * as foundation from './migrations/0001-foundation.js'
import * as customers from './migrations/0002-customers.js'
import * as subscriptions from './migrations/0003-subscriptions.js'
import * as annualPlans from './migrations/0004-annual-plans.js'
import * as idempotencyKeys from './migrations/0005-idempotency-keys.js'

// Listed explicitly rather than read from the folder, so the same list works from src/ and dist/.
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-customers': customers,
  '0003-subscriptions': subscriptions,
  '0004-annual-plans': annualPlans,
  '0005-idempotency-keys': idempotencyKeys,
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

export class MigrationError extends Error {}

/** Applies every pending migration; safe to run from several processes at once (Kysely locks). */
// biome-ignore lint/suspicious/noExplicitAny: migrations run on an untyped view of the schema
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in any schema; pin them to ours so that several
  // schemas of one PostgreSQL database (one per test file) do not see each other's.
  const migrationTableSchema = isPostgres(db)
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
    : undefined
  const { error, results = [] } = await new Migrator({ db, provider, migrationTableSchema }).migrateToLatest()
  if (error) {
    const failed = results.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new MigrationError(`Migration ${failed} failed: ${error instanceof Error ? error.message : error}`)
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
