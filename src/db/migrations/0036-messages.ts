import { type Kysely, sql } from 'kysely'
import { columnTypes, trueValue } from './column-types.js'

/**
 * Messages to the insured (README, Messages to the insured):
 *
 * - `messages`: one e-mail each, written whole when queued (subject, text, HTML, recipient), sent
 *   later by the worker. `message_id` is its `Message-ID` header, unique: a message made from an
 *   event is named after the event and the customer, so a second one for the same pair cannot be
 *   queued. `attachment` names what the worker attaches when it sends (the certificate), as JSON.
 *   `locked_until` is a worker's lease while it sends, as for webhook deliveries.
 * - `message_attempts`: every attempt to send, with its outcome and the server's answer.
 * - `message_dispatch`: the last event feed position turned into messages (starting at the feed's
 *   end: events written before messages existed are not announced).
 * - `sign_in_links`: the portal's single-use sign-in links, by the SHA-256 of their token.
 * - `partners.notify_insured`: the operator's switch for partners that write to their customers
 *   themselves (on by default).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await t
    .id(db.schema.createTable('messages'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('event_public_id', 'text')
    .addColumn('message_id', 'text', (c) => c.notNull().unique())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text', (c) => c.notNull())
    .addColumn('attachment', 'text')
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'sent', 'kept', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', t.timestamp)
    .addColumn('locked_until', t.timestamp)
    .addColumn('sent_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  // What the workers look for: pending messages whose attempt time has come.
  await db.schema
    .createIndex('messages_due')
    .on('messages')
    .column('next_attempt_at')
    .where(sql.ref('state'), '=', 'pending')
    .execute()
  await db.schema.createIndex('messages_customer').on('messages').columns(['customer_id', 'id']).execute()
  await db.schema.createIndex('messages_partner').on('messages').columns(['partner_id', 'id']).execute()

  await t
    .id(db.schema.createTable('message_attempts'))
    .addColumn('message_id', 'integer', (c) => c.notNull().references('messages.id'))
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('sent', 'refused')`))
    .addColumn('response', 'text')
    .addColumn('attempted_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('message_attempts_message')
    .on('message_attempts')
    .columns(['message_id', 'id'])
    .execute()

  await db.schema
    .createTable('message_dispatch')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('position', 'bigint', (c) => c.notNull())
    .execute()
  await sql`insert into message_dispatch (id, position)
    select 1, coalesce(max(position), 0) from events`.execute(db)

  await t
    .id(db.schema.createTable('sign_in_links'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('used_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()

  await db.schema
    .alterTable('partners')
    .addColumn('notify_insured', t.bool, (c) => c.notNull().defaultTo(trueValue(db)))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('partners').dropColumn('notify_insured').execute()
  await db.schema.dropTable('sign_in_links').execute()
  await db.schema.dropTable('message_dispatch').execute()
  await db.schema.dropTable('message_attempts').execute()
  await db.schema.dropTable('messages').execute()
}
