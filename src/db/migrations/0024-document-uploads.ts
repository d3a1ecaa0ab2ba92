import { randomUUID } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * A document's bytes are written before its row (docs/decisions.md, Claims: document storage): the
 * chunks, in `claim_document_chunks`, are keyed by the upload that wrote them, and the document's
 * row names that upload (`claim_documents.upload_id`). Each chunk is then its own short
 * transaction, taken while the file is read, and the document's transaction writes only its row.
 * The existing chunks move one document at a time under a new upload id; `down` moves them back.
 *
 * Also an index of documents by upload time: a partner's bytes of the day (AMPARO_CLAIM_DOCUMENT_MIB_PER_PARTNER_DAY).
 */

// biome-ignore lint/suspicious/noExplicitAny: migrations run on an untyped view of the schema
type Untyped = Kysely<any>

export async function up(db: Kysely<unknown>): Promise<void> {
  const untyped = db as Untyped
  await db.schema
    .createTable('claim_document_chunks')
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addColumn('chunk', 'integer', (c) => c.notNull())
    .addColumn('bytes', blobType(db), (c) => c.notNull())
    // Named: PostgreSQL's default name is the older table's constraint until it is dropped.
    .addPrimaryKeyConstraint('claim_document_upload_chunks_pkey', ['upload_id', 'chunk'])
    .execute()
  await db.schema.alterTable('claim_documents').addColumn('upload_id', 'text').execute()
  const documents = await untyped.selectFrom('claim_documents').select('id').orderBy('id').execute()
  for (const { id } of documents) {
    const upload = randomUUID()
    await sql`
      insert into claim_document_chunks (upload_id, chunk, bytes)
      select ${upload}, chunk, bytes from claim_document_contents where document_id = ${id}
    `.execute(db)
    await untyped.updateTable('claim_documents').set({ upload_id: upload }).where('id', '=', id).execute()
  }
  await db.schema.dropTable('claim_document_contents').execute()
  // NOT NULL on PostgreSQL only, as elsewhere: SQLite would rebuild the table.
  if (isPostgres(db)) {
    await db.schema
      .alterTable('claim_documents')
      .alterColumn('upload_id', (c) => c.setNotNull())
      .execute()
  }
  await db.schema
    .createIndex('claim_documents_upload_unique')
    .on('claim_documents')
    .column('upload_id')
    .unique()
    .execute()
  await db.schema
    .createIndex('claim_documents_uploaded_idx')
    .on('claim_documents')
    .column('uploaded_at')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const untyped = db as Untyped
  await db.schema.dropIndex('claim_documents_uploaded_idx').execute()
  await db.schema.dropIndex('claim_documents_upload_unique').execute()
  await db.schema
    .createTable('claim_document_contents')
    .addColumn('document_id', 'integer', (c) => c.notNull().references('claim_documents.id'))
    .addColumn('chunk', 'integer', (c) => c.notNull())
    .addColumn('bytes', blobType(db), (c) => c.notNull())
    .addPrimaryKeyConstraint('claim_document_chunks_pkey', ['document_id', 'chunk'])
    .execute()
  const documents = await untyped
    .selectFrom('claim_documents')
    .select(['id', 'upload_id'])
    .orderBy('id')
    .execute()
  for (const { id, upload_id } of documents) {
    await sql`
      insert into claim_document_contents (document_id, chunk, bytes)
      select ${id}, chunk, bytes from claim_document_chunks where upload_id = ${upload_id}
    `.execute(db)
  }
  await db.schema.alterTable('claim_documents').dropColumn('upload_id').execute()
  await db.schema.dropTable('claim_document_chunks').execute()
}

const blobType = (db: Kysely<unknown>) => (isPostgres(db) ? sql`bytea` : sql`blob`)
