import {
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
  sql,
} from 'kysely'
import { type Db, isPostgres } from './database.js'
import * as foundation from './migrations/0001-foundation.js'
import * as customers from './migrations/0002-customers.js'
import * as subscriptions from './migrations/0003-subscriptions.js'
import * as annualPlans from './migrations/0004-annual-plans.js'
import * as idempotencyKeys from './migrations/0005-idempotency-keys.js'
import * as partnerSequences from './migrations/0006-partner-sequences.js'
import * as moneyBigint from './migrations/0007-money-bigint.js'
import * as deviceProtections from './migrations/0008-device-protections.js'
import * as cardPayments from './migrations/0009-card-payments.js'
import * as refunds from './migrations/0010-refunds.js'
import * as events from './migrations/0011-events.js'
import * as webhooks from './migrations/0012-webhooks.js'
import * as sandboxClock from './migrations/0013-sandbox-clock.js'
import * as cardAttempts from './migrations/0014-card-attempts.js'
import * as claims from './migrations/0015-claims.js'
import * as subscriptionExpiry from './migrations/0016-subscription-expiry.js'
import * as operators from './migrations/0017-operators.js'
import * as consoleReads from './migrations/0018-console-reads.js'
import * as certificates from './migrations/0019-certificates.js'
import * as partialIndexes from './migrations/0020-partial-indexes.js'
import * as claimStorage from './migrations/0021-claim-storage.js'
import * as writeIndexes from './migrations/0022-write-indexes.js'
import * as deviceSkeletons from './migrations/0023-device-skeletons.js'
import * as documentUploads from './migrations/0024-document-uploads.js'
import * as auditLogSealed from './migrations/0025-audit-log-sealed.js'
import * as cardTries from './migrations/0026-card-tries.js'
import * as keyedAttempts from './migrations/0027-keyed-attempts.js'
import * as subscriptionExpiredStatus from './migrations/0028-subscription-expired-status.js'
import * as customerNameWords from './migrations/0029-customer-name-words.js'
import * as premiumHours from './migrations/0030-premium-hours.js'
import * as claimsDeskWork from './migrations/0031-claims-desk-work.js'
import * as claimDeadlines from './migrations/0032-claim-deadlines.js'
import * as documentHashIndex from './migrations/0033-document-hash-index.js'
import * as operatorOneTimePasswords from './migrations/0034-operator-one-time-passwords.js'
import * as paymentCodes from './migrations/0035-payment-codes.js'
import * as messages from './migrations/0036-messages.js'
import * as insuredPortal from './migrations/0037-insured-portal.js'
import * as paymentDisputes from './migrations/0038-payment-disputes.js'
import * as premiumPlanSums from './migrations/0039-premium-plan-sums.js'
import * as annualPlansByCustomer from './migrations/0040-annual-plans-by-customer.js'

// Listed explicitly rather than read from the folder, so the same list works from src/ and dist/.
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-customers': customers,
  '0003-subscriptions': subscriptions,
  '0004-annual-plans': annualPlans,
  '0005-idempotency-keys': idempotencyKeys,
  '0006-partner-sequences': partnerSequences,
  '0007-money-bigint': moneyBigint,
  '0008-device-protections': deviceProtections,
  '0009-card-payments': cardPayments,
  '0010-refunds': refunds,
  '0011-events': events,
  '0012-webhooks': webhooks,
  '0013-sandbox-clock': sandboxClock,
  '0014-card-attempts': cardAttempts,
  '0015-claims': claims,
  '0016-subscription-expiry': subscriptionExpiry,
  '0017-operators': operators,
  '0018-console-reads': consoleReads,
  '0019-certificates': certificates,
  '0020-partial-indexes': partialIndexes,
  '0021-claim-storage': claimStorage,
  '0022-write-indexes': writeIndexes,
  '0023-device-skeletons': deviceSkeletons,
  '0024-document-uploads': documentUploads,
  '0025-audit-log-sealed': auditLogSealed,
  '0026-card-tries': cardTries,
  '0027-keyed-attempts': keyedAttempts,
  '0028-subscription-expired-status': subscriptionExpiredStatus,
  '0029-customer-name-words': customerNameWords,
  '0030-premium-hours': premiumHours,
  '0031-claims-desk-work': claimsDeskWork,
  '0032-claim-deadlines': claimDeadlines,
  '0033-document-hash-index': documentHashIndex,
  '0034-operator-one-time-passwords': operatorOneTimePasswords,
  '0035-payment-codes': paymentCodes,
  '0036-messages': messages,
  '0037-insured-portal': insuredPortal,
  '0038-payment-disputes': paymentDisputes,
  '0039-premium-plan-sums': premiumPlanSums,
  '0040-annual-plans-by-customer': annualPlansByCustomer,
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

export class MigrationError extends Error {}

// biome-ignore lint/suspicious/noExplicitAny: migrations run on an untyped view of the schema
async function migrator(db: Kysely<any>): Promise<Migrator> {
  // Kysely looks for its bookkeeping tables in any schema; pin them to ours so that several
  // schemas of one PostgreSQL database (one per test file) do not see each other's.
  const migrationTableSchema = isPostgres(db)
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
    : undefined
  return new Migrator({ db, provider, migrationTableSchema })
}

function applied({ error, results = [] }: MigrationResultSet): string[] {
  if (error) {
    const failed = results.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new MigrationError(
      `Migration ${failed} failed: ${error instanceof Error ? error.message : error}`,
      {
        cause: error,
      },
    )
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** Applies every pending migration; safe to run from several processes at once (Kysely locks). */
export async function migrateToLatest(database: Db): Promise<string[]> {
  const db = untyped(database)
  return applied(await waitingForWriters(db, async () => (await migrator(db)).migrateToLatest()))
}

/** Applies (or reverts) migrations up to `name` included: tests of a migration's data step. */
export async function migrateTo(database: Db, name: string): Promise<string[]> {
  if (!(name in migrations)) throw new MigrationError(`No migration ${name}`)
  const db = untyped(database)
  return applied(await waitingForWriters(db, async () => (await migrator(db)).migrateTo(name)))
}

/**
 * Migrations write outside `retryingTransaction`, in Kysely's own transactions, on an untyped view
 * of the schema: the one place besides `createDb` where a `Db` is seen as the Kysely it is.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run on an untyped view of the schema
const untyped = (db: Db) => db as unknown as Kysely<any>

/**
 * SQLite: migrations wait for another process's writer in SQLite's busy handler (up to 5 s), which
 * the service's connection otherwise has not (sqlite.ts): they run before anything is served, and
 * are not one transaction that could be tried again.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run on an untyped view of the schema
async function waitingForWriters<T>(db: Kysely<any>, run: () => Promise<T>): Promise<T> {
  if (isPostgres(db)) return run()
  await sql`pragma busy_timeout = 5000`.execute(db)
  try {
    return await run()
  } finally {
    await sql`pragma busy_timeout = 0`.execute(db)
  }
}
