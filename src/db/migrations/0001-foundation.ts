import { type Kysely, sql } from 'kysely'
import { columnTypes, falseValue, trueValue } from './column-types.js'

// Partners and their access, the device catalog, plans and stores.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)

  await t
    .id(db.schema.createTable('partners'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('document', 'text')
    .addColumn('gateway', 'text', (c) => c.notNull().check(inList('gateway', ['external', 'own'])))
    .addColumn('lmi_min_factor_bp', 'integer', (c) => c.notNull())
    .addColumn('lmi_max_factor_bp', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()

  await t
    .id(db.schema.createTable('credentials'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('revoked_at', t.timestamp)
    .execute()
  await db.schema.createIndex('credentials_partner_idx').on('credentials').column('partner_id').execute()

  await t
    .id(db.schema.createTable('partner_users'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('disabled', t.bool, (c) => c.notNull().defaultTo(falseValue(db)))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()

  await t
    .id(db.schema.createTable('brands'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()

  await t
    .id(db.schema.createTable('models'))
    .addColumn('brand_id', 'integer', (c) => c.notNull().references('brands.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('default_lmi', 'integer', (c) => c.notNull().check(sqlCheck('default_lmi > 0')))
    .addColumn('active', t.bool, (c) => c.notNull().defaultTo(trueValue(db)))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('models_brand_name_unique', ['brand_id', 'name'])
    .execute()

  await db.schema
    .createTable('partner_models')
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id'))
    .addColumn('unavailable', t.bool, (c) => c.notNull().defaultTo(falseValue(db)))
    .addPrimaryKeyConstraint('partner_models_pk', ['partner_id', 'model_id'])
    .execute()

  await t
    .id(db.schema.createTable('plans'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(inList('kind', ['subscription', 'annual'])))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('installments', 'integer', (c) => c.notNull().check(sqlCheck('installments between 1 and 60')))
    .addColumn('monthly_rate_bp', 'integer')
    .addColumn('franchise_rate_bp', 'integer')
    .addColumn('annual_rate_bp', 'integer')
    .addColumn('used_factor_bp', 'integer')
    .addColumn('coverages', 'text', (c) => c.notNull())
    .addColumn('is_default', t.bool, (c) => c.notNull().defaultTo(falseValue(db)))
    .addColumn('active', t.bool, (c) => c.notNull().defaultTo(trueValue(db)))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('plans_partner_idx').on('plans').columns(['partner_id', 'kind']).execute()

  await t
    .id(db.schema.createTable('shopkeepers'))
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id'))
    .addColumn('matrix', t.bool, (c) => c.notNull().defaultTo(falseValue(db)))
    .addColumn('trading_name', 'text', (c) => c.notNull())
    .addColumn('registration_number', 'text', (c) => c.unique())
    .addColumn('phone', 'text')
    .addColumn('website', 'text')
    .addColumn('zip_code', 'text')
    .addColumn('street', 'text')
    .addColumn('number', 'text')
    .addColumn('complement', 'text')
    .addColumn('neighborhood', 'text')
    .addColumn('city', 'text')
    .addColumn('state', 'text')
    .addColumn('responsible_name', 'text')
    .addColumn('responsible_email', 'text', (c) => c.unique())
    .addColumn('responsible_phone', 'text')
    .addColumn('responsible_registration_number', 'text', (c) => c.unique())
    .addColumn('responsible_role', 'text')
    .addColumn('responsible_rg', 'text')
    .addColumn('bank_name', 'text')
    .addColumn('bank_agency', 'text')
    .addColumn('bank_account', 'text')
    .addColumn('bank_account_digit', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('shopkeepers_partner_idx')
    .on('shopkeepers')
    .columns(['partner_id', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'shopkeepers',
    'plans',
    'partner_models',
    'models',
    'brands',
    'signing_keys',
    'partner_users',
    'credentials',
    'partners',
  ]) {
    await db.schema.dropTable(table).execute()
  }
}

function inList(column: string, values: string[]) {
  return sqlCheck(`${column} in (${values.map((v) => `'${v}'`).join(', ')})`)
}

function sqlCheck(expression: string) {
  return sql.raw(expression)
}
