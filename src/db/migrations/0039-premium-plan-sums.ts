import type { Kysely } from 'kysely'

/**
 * The Painel's premiums collected per partner and plan in a period: a range of this index a plan,
 * read alone (no row of the table, no sort), where grouping the period's hours sorted every one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('premium_hours_plans')
    .on('premium_hours')
    .columns(['partner_id', 'plan_id', 'hour', 'collected'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('premium_hours_plans').execute()
}
