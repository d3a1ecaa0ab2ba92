import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * The console's search by name (docs/decisions.md, "Search by name"): each word of a customer's
 * name, without accents and lowercase, in `customer_name_words`, so that a word's prefix is an
 * indexed range (`word >= 'mar' and word < 'mas'`), on PostgreSQL in the C collation so the range
 * is a byte range. Filled here from the customers already stored; the customers' repository writes
 * the words of each new customer in the transaction that inserts it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = isPostgres(db)
  await db.schema
    .createTable('customer_name_words')
    .addColumn('word', 'text', (c) => (pg ? c.notNull().modifyEnd(sql`collate "C"`) : c.notNull()))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('customer_name_words_pk', ['word', 'customer_id'])
    .execute()
  await db.schema
    .createIndex('customer_name_words_customer')
    .on('customer_name_words')
    .column('customer_id')
    .execute()

  // In batches by id: a large table is read and written a slice at a time.
  const BATCH = 1000
  let after = 0
  for (;;) {
    const { rows } = await sql<{ id: number; name: string }>`select id, name from customers
      where id > ${after} order by id limit ${BATCH}`.execute(db)
    if (rows.length === 0) break
    const values = rows.flatMap((row) => words(row.name).map((word) => ({ word, customer_id: row.id })))
    for (let i = 0; i < values.length; i += 500) {
      const slice = values.slice(i, i + 500)
      await sql`insert into customer_name_words (word, customer_id) values ${sql.join(
        slice.map((v) => sql`(${v.word}, ${v.customer_id})`),
      )}`.execute(db)
    }
    after = Number(rows[rows.length - 1]?.id)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('customer_name_words').execute()
}

// A copy of shared/text.ts `nameWords` as it was when this migration was written: a migration
// keeps doing what it did whatever the live code becomes.
function words(name: string): string[] {
  const plain = name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()
  return [...new Set(plain.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0))]
}
