import type { Kysely } from 'kysely'

/**
 * Documents looked up by their bytes' SHA-256 (stored since 0015): an upload whose file is already on
 * another customer's claim, under any partner, raises `reused_document` (README, Claim documents),
 * and a claim's page shows those claims.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('claim_documents_sha256')
    .on('claim_documents')
    .columns(['sha256', 'claim_id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('claim_documents_sha256').execute()
}
