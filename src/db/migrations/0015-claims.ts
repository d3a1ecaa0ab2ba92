import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'
import { columnTypes } from './column-types.js'

/**
 * Claims (README, Claims). Plans gain their typed coverage and claim terms, the demo's and every
 * existing plan's `coverage_types` read from the words of its `coverages`; annual plans gain the
 * franchise fixed at contracting (existing ones: the plan's franchise rate × LMI, half-up, and 0
 * for plans without a rate, which annual plans never had until now: docs/decisions.md, Claims).
 *
 * `claims` holds a claim with its decision and settlement; `claim_numbers` the last number given in
 * each year (one row a year, incremented by an upsert, so two processes never draw one number);
 * `claim_documents` the uploaded files' metadata and `claim_document_contents` their bytes, apart,
 * so that reading a claim or its list never reads a file.
 */
// The words that named each coverage type when this migration was written (plan.rules.ts may change
// its own later: a migration must give every new database the same rows).
const COVERAGE_WORDS: [string, string][] = [
  ['roubo', 'robbery'],
  ['furto', 'qualified_theft'],
  ['quebra', 'accidental_damage'],
  ['liquido', 'liquid_damage'],
]

/** The coverage types a plan's `coverages` strings name, in the order above. */
function coverageTypesNamedBy(coverages: readonly string[]): string[] {
  const text = coverages.join(' | ').normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()
  return COVERAGE_WORDS.filter(([word]) => text.includes(word)).map(([, type]) => type)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  const money = isPostgres(db) ? 'bigint' : 'integer'
  const blob = isPostgres(db) ? sql`bytea` : sql`blob`

  await db.schema
    .alterTable('plans')
    .addColumn('coverage_types', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute()
  await db.schema
    .alterTable('plans')
    .addColumn('claim_notice_days', 'integer', (c) => c.notNull().defaultTo(30))
    .execute()
  await db.schema
    .alterTable('plans')
    .addColumn('max_claims_per_year', 'integer', (c) => c.notNull().defaultTo(2))
    .execute()
  // biome-ignore lint/suspicious/noExplicitAny: migrations run on an untyped view of the schema
  const untyped = db as Kysely<any>
  const plans: { id: number; coverages: string }[] = await untyped
    .selectFrom('plans')
    .select(['id', 'coverages'])
    .execute()
  for (const plan of plans) {
    const types = coverageTypesNamedBy(JSON.parse(plan.coverages) as string[])
    await untyped
      .updateTable('plans')
      .set({ coverage_types: JSON.stringify(types) })
      .where('id', '=', plan.id)
      .execute()
  }

  await db.schema
    .alterTable('annual_plans')
    .addColumn('franchise', money, (c) => c.notNull().defaultTo(0))
    .execute()
  await sql`update annual_plans set franchise = (
      select (annual_plans.lmi * p.franchise_rate_bp + 5000) / 10000 from plans p
      where p.id = annual_plans.plan_id)
    where plan_id in (select id from plans where franchise_rate_bp is not null)`.execute(db)

  await db.schema
    .createTable('claim_numbers')
    .addColumn('year', 'integer', (c) => c.primaryKey())
    .addColumn('last', 'integer', (c) => c.notNull())
    .execute()

  await t
    .id(db.schema.createTable('claims'))
    .addColumn('number', 'text', (c) => c.notNull().unique())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('subscription_id', 'integer', (c) => c.references('subscriptions.id'))
    .addColumn('annual_plan_id', 'integer', (c) => c.references('annual_plans.id'))
    .addColumn('plan_id', 'integer', (c) => c.notNull().references('plans.id'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id'))
    .addColumn('customer_document', 'text', (c) => c.notNull())
    .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id'))
    .addColumn('serial_number', 'text')
    .addColumn('device_key', 'text')
    .addColumn('second_device_key', 'text')
    .addColumn('type', 'text', (c) =>
      c.notNull().check(sql`type in ('robbery', 'qualified_theft', 'accidental_damage', 'liquid_damage')`),
    )
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .check(
          sql`status in ('documents_pending', 'under_review', 'approved', 'denied', 'settled', 'withdrawn')`,
        ),
    )
    .addColumn('occurred_at', t.timestamp, (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('police_report_number', 'text')
    .addColumn('police_report_issued_on', t.date)
    .addColumn('lmi', money, (c) => c.notNull())
    .addColumn('franchise', money, (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.check(sql`outcome in ('approved', 'denied')`))
    .addColumn('settlement_method', 'text', (c) =>
      c.check(sql`settlement_method in ('repair', 'replacement', 'indemnity')`),
    )
    .addColumn('approved_amount', money)
    .addColumn('payable_amount', money)
    .addColumn('reason_code', 'text')
    .addColumn('note', 'text')
    .addColumn('decided_at', t.timestamp)
    .addColumn('settlement_reference', 'text')
    .addColumn('settled_at', t.timestamp)
    .addColumn('fraud_signals', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addCheckConstraint('claims_one_contract', sql`(subscription_id is null) <> (annual_plan_id is null)`)
    .execute()
  // The list, newest first, optionally by status.
  await db.schema.createIndex('claims_partner_idx').on('claims').columns(['partner_id', 'id']).execute()
  await db.schema
    .createIndex('claims_partner_status_idx')
    .on('claims')
    .columns(['partner_id', 'status', 'id'])
    .execute()
  // A contract's claims: the open one, the yearly limit, the filters.
  await db.schema
    .createIndex('claims_subscription_idx')
    .on('claims')
    .columns(['subscription_id', 'id'])
    .execute()
  await db.schema
    .createIndex('claims_annual_plan_idx')
    .on('claims')
    .columns(['annual_plan_id', 'id'])
    .execute()
  // The fraud signals look across partners by device and by customer document.
  await db.schema
    .createIndex('claims_device_idx')
    .on('claims')
    .columns(['device_key', 'created_at'])
    .execute()
  await db.schema
    .createIndex('claims_second_device_idx')
    .on('claims')
    .columns(['second_device_key', 'created_at'])
    .execute()
  await db.schema
    .createIndex('claims_customer_document_idx')
    .on('claims')
    .columns(['customer_document', 'created_at'])
    .execute()

  await t
    .id(db.schema.createTable('claim_documents'))
    .addColumn('claim_id', 'integer', (c) => c.notNull().references('claims.id'))
    .addColumn('kind', 'text', (c) =>
      c
        .notNull()
        .check(
          sql`kind in ('police_report', 'imei_block', 'invoice', 'photo', 'repair_quote', 'id_document', 'other')`,
        ),
    )
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('uploaded_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('claim_documents_claim_idx')
    .on('claim_documents')
    .columns(['claim_id', 'id'])
    .execute()

  await db.schema
    .createTable('claim_document_contents')
    .addColumn('document_id', 'integer', (c) => c.primaryKey().references('claim_documents.id'))
    .addColumn('bytes', blob, (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['claim_document_contents', 'claim_documents', 'claims', 'claim_numbers']) {
    await db.schema.dropTable(table).execute()
  }
  await db.schema.alterTable('annual_plans').dropColumn('franchise').execute()
  for (const column of ['max_claims_per_year', 'claim_notice_days', 'coverage_types']) {
    await db.schema.alterTable('plans').dropColumn(column).execute()
  }
}
