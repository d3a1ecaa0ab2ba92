import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * Two changes of the claims' storage.
 *
 * A document's bytes as chunks (docs/decisions.md, Claims: document storage): `claim_document_contents`
 * holds rows of (document_id, chunk, bytes), chunk 0, 1, … in the file's order, each of at most
 * 256 KiB (the size `insertDocument` writes; reading joins whatever sizes are there), instead of one
 * row with the whole file. An upload then binds one chunk at a time, never the file in one value
 * (docs/benchmarks.md, Claims: uploads). The existing files are cut into chunks one document at a
 * time; `down` joins them back.
 *
 * Each partner's claims numbered 1, 2, 3… in opening order (`partner_seq`), with the partner's count
 * in a row of its own (`partner_claim_counts`), as the subscriptions' (0006): a page of the claims
 * list is then a range of an index and its total one row, whatever the partner's size
 * (docs/benchmarks.md, Claims: a page). Claims are never deleted: the count is the highest number.
 */
const CHUNK_BYTES = 256 * 1024

// biome-ignore lint/suspicious/noExplicitAny: migrations run on an untyped view of the schema
type Untyped = Kysely<any>

export async function up(db: Kysely<unknown>): Promise<void> {
  const untyped = db as Untyped
  await db.schema.alterTable('claim_document_contents').renameTo('claim_document_contents_0015').execute()
  await db.schema
    .createTable('claim_document_contents')
    .addColumn('document_id', 'integer', (c) => c.notNull().references('claim_documents.id'))
    .addColumn('chunk', 'integer', (c) => c.notNull())
    .addColumn('bytes', blobType(db), (c) => c.notNull())
    // Named: PostgreSQL's default name is still the old table's index until it is dropped.
    .addPrimaryKeyConstraint('claim_document_chunks_pkey', ['document_id', 'chunk'])
    .execute()
  for (const id of await documentIds(untyped, 'claim_document_contents_0015')) {
    const { bytes } = await untyped
      .selectFrom('claim_document_contents_0015')
      .select('bytes')
      .where('document_id', '=', id)
      .executeTakeFirstOrThrow()
    const whole = bytes as Buffer
    for (let chunk = 0; chunk * CHUNK_BYTES < whole.length; chunk++) {
      const part = whole.subarray(chunk * CHUNK_BYTES, (chunk + 1) * CHUNK_BYTES)
      await untyped
        .insertInto('claim_document_contents')
        .values({ document_id: id, chunk, bytes: part })
        .execute()
    }
  }
  await db.schema.dropTable('claim_document_contents_0015').execute()

  await db.schema.alterTable('claims').addColumn('partner_seq', 'integer').execute()
  // Existing claims are numbered in id order, the order the list has always shown.
  await sql`
    update claims set partner_seq = numbered.seq
    from (select id, row_number() over (partition by partner_id order by id) as seq from claims) as numbered
    where numbered.id = claims.id
  `.execute(db)
  // NOT NULL on PostgreSQL only, as for subscriptions (0006): SQLite would rebuild the table.
  if (isPostgres(db)) {
    await db.schema
      .alterTable('claims')
      .alterColumn('partner_seq', (c) => c.setNotNull())
      .execute()
  }
  await db.schema
    .createIndex('claims_partner_seq_unique')
    .on('claims')
    .columns(['partner_id', 'partner_seq'])
    .unique()
    .execute()
  await db.schema
    .createTable('partner_claim_counts')
    .addColumn('partner_id', 'integer', (c) => c.primaryKey().references('partners.id'))
    .addColumn('total', 'integer', (c) => c.notNull())
    .execute()
  await sql`
    insert into partner_claim_counts (partner_id, total)
    select partner_id, count(*) from claims group by partner_id
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const untyped = db as Untyped
  await db.schema.dropTable('partner_claim_counts').execute()
  await db.schema.dropIndex('claims_partner_seq_unique').execute()
  await db.schema.alterTable('claims').dropColumn('partner_seq').execute()

  await db.schema.alterTable('claim_document_contents').renameTo('claim_document_contents_0021').execute()
  await db.schema
    .createTable('claim_document_contents')
    .addColumn('document_id', 'integer', (c) => c.primaryKey().references('claim_documents.id'))
    .addColumn('bytes', blobType(db), (c) => c.notNull())
    .execute()
  for (const id of await documentIds(untyped, 'claim_document_contents_0021')) {
    const chunks = await untyped
      .selectFrom('claim_document_contents_0021')
      .select('bytes')
      .where('document_id', '=', id)
      .orderBy('chunk')
      .execute()
    const bytes = Buffer.concat(chunks.map((c) => c.bytes as Buffer))
    await untyped.insertInto('claim_document_contents').values({ document_id: id, bytes }).execute()
  }
  await db.schema.dropTable('claim_document_contents_0021').execute()
}

const blobType = (db: Kysely<unknown>) => (isPostgres(db) ? sql`bytea` : sql`blob`)

async function documentIds(db: Untyped, table: string): Promise<number[]> {
  const rows = await db.selectFrom(table).select('document_id').distinct().orderBy('document_id').execute()
  return rows.map((r) => Number(r.document_id))
}
