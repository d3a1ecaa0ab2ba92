import type { Kysely } from 'kysely'

/**
 * A customer's annual plans by the customer: the portal's Minhas proteções and the console's search
 * read every contract of a person, and without it each read scanned the table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('annual_plans_customer_idx')
    .on('annual_plans')
    .columns(['customer_id', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('annual_plans_customer_idx').execute()
}
