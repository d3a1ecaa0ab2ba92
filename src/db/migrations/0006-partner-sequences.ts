import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * Numbers each partner's subscriptions 1, 2, 3… in contracting order and keeps the partner's count
 * in a row of its own, so a page of the list is a range of an index and its total one row, whatever
 * the partner's size (docs/benchmarks.md, "Optimisations kept"). Subscriptions are never
 * deleted: the count is the highest number and the numbers have no gaps.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('subscriptions').addColumn('partner_seq', 'integer').execute()
  // Existing rows are numbered in id order, the order the list has always shown.
  await sql`
    update subscriptions set partner_seq = numbered.seq
    from (
      select id, row_number() over (partition by partner_id order by id) as seq from subscriptions
    ) as numbered
    where numbered.id = subscriptions.id
  `.execute(db)
  // NOT NULL on PostgreSQL only: SQLite cannot add a constraint to an existing column (it would
  // take rebuilding the table, which installments and payments reference). There the column stays
  // nullable; insertSubscription always sets it and the unique index below refuses duplicates.
  if (isPostgres(db)) {
    await db.schema
      .alterTable('subscriptions')
      .alterColumn('partner_seq', (c) => c.setNotNull())
      .execute()
  }
  await db.schema
    .createIndex('subscriptions_partner_seq_unique')
    .on('subscriptions')
    .columns(['partner_id', 'partner_seq'])
    .unique()
    .execute()

  await db.schema
    .createTable('partner_subscription_counts')
    .addColumn('partner_id', 'integer', (c) => c.primaryKey().references('partners.id'))
    .addColumn('total', 'integer', (c) => c.notNull())
    .execute()
  await sql`
    insert into partner_subscription_counts (partner_id, total)
    select partner_id, count(*) from subscriptions group by partner_id
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('partner_subscription_counts').execute()
  await db.schema.dropIndex('subscriptions_partner_seq_unique').execute()
  await db.schema.alterTable('subscriptions').dropColumn('partner_seq').execute()
}
