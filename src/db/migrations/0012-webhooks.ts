import { type Kysely, sql } from 'kysely'
import { columnTypes } from './column-types.js'

/**
 * Webhooks (README, Webhooks): the partners' endpoints, one delivery row per event and endpoint, and
 * the dispatcher's cursor (the last feed position it turned into deliveries).
 *
 * The endpoint's secret is kept as issued: the service signs with it. `previous_secret` signs too
 * until `previous_secret_expires_at` (24 h after a rotation). `failing_since` is the first failed
 * attempt since the last success: 3 days of only failures disable the endpoint.
 * A delivery's `locked_until` is a worker's lease on it (the claim); `event_id` is the event's row,
 * without a foreign key: events and deliveries are purged by separate steps.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await t
    .id(db.schema.createTable('webhook_endpoints'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('enabled', 'disabled')`))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', t.timestamp)
    .addColumn('failing_since', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('webhook_endpoints_partner')
    .on('webhook_endpoints')
    .column('partner_id')
    .execute()

  await t
    .id(db.schema.createTable('webhook_deliveries'))
    .addColumn('endpoint_id', 'integer', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('event_id', 'integer', (c) => c.notNull())
    .addColumn('event_public_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'succeeded', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', t.timestamp)
    .addColumn('locked_until', t.timestamp)
    .addColumn('delivered_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  // What the workers look for: pending deliveries whose attempt time has come.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['next_attempt_at'])
    .where(sql.ref('status'), '=', 'pending')
    .execute()
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'id'])
    .execute()
  await db.schema
    .createIndex('webhook_deliveries_created_at')
    .on('webhook_deliveries')
    .column('created_at')
    .execute()

  await db.schema
    .createTable('webhook_dispatch')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('position', 'bigint', (c) => c.notNull())
    .execute()
  // Events written before webhooks existed are not delivered: the cursor starts at the feed's end.
  await sql`insert into webhook_dispatch (id, position)
    select 1, coalesce(max(position), 0) from events`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_dispatch').execute()
  await db.schema.dropTable('webhook_deliveries').execute()
  await db.schema.dropTable('webhook_endpoints').execute()
}
