import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * The operator console's reads (README, Operator console), each an indexed lookup or range rather
 * than a scan of 100,000 subscriptions (docs/benchmarks.md, Operator console):
 *
 * - search: a customer's document across partners, serial numbers and IMEIs, policy numbers;
 * - dashboard: contracts, ledger rows and claims by instant (the period's range), protections in force;
 * - claims queue: oldest first, whole or by status;
 * - a partner's webhook health: an endpoint's deliveries of the last 24 hours;
 * - a claim's timeline: a partner's events by their object's id (`data.id`), an expression index
 *   the query spells the same way (console/claims-desk.repository.ts).
 */
const INDEXES: [name: string, table: string, columns: string[]][] = [
  ['customers_document_idx', 'customers', ['document']],
  ['subscriptions_serial_idx', 'subscriptions', ['serial_number']],
  ['subscriptions_second_serial_idx', 'subscriptions', ['second_serial_number']],
  ['subscriptions_created_at_idx', 'subscriptions', ['created_at']],
  ['subscriptions_active_idx', 'subscriptions', ['status', 'ends_on']],
  ['annual_plans_imei_idx', 'annual_plans', ['imei']],
  ['annual_plans_imei_2_idx', 'annual_plans', ['imei_2']],
  ['annual_plans_policy_number_idx', 'annual_plans', ['policy_number']],
  ['annual_plans_created_at_idx', 'annual_plans', ['created_at']],
  ['payments_created_at_idx', 'payments', ['created_at']],
  ['claims_created_at_idx', 'claims', ['created_at', 'id']],
  ['claims_status_created_at_idx', 'claims', ['status', 'created_at', 'id']],
  ['claims_decided_at_idx', 'claims', ['decided_at']],
  ['claims_settled_at_idx', 'claims', ['settled_at']],
  ['webhook_deliveries_endpoint_created_at', 'webhook_deliveries', ['endpoint_id', 'created_at']],
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, table, columns] of INDEXES)
    await db.schema.createIndex(name).on(table).columns(columns).execute()
  const objectId = isPostgres(db) ? sql`(data::jsonb ->> 'id')` : sql`json_extract(data, '$.id')`
  await sql`create index events_object_id on events (partner_id, ${objectId})`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('events_object_id').execute()
  for (const [name] of [...INDEXES].reverse()) await db.schema.dropIndex(name).execute()
}
