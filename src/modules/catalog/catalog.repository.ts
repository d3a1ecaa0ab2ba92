import { type ExpressionBuilder, type Insertable, sql } from 'kysely'
import type { Database, Reader, Trx } from '../../db/database.js'
import { codePointLower } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'
import type { ModelsTable } from '../../db/tables/catalog.js'

export interface BrandRow {
  id: number
  name: string
}

export interface ModelRow {
  id: number
  name: string
  brand_id: number
  brand_name: string
  default_lmi: number
}

export interface ModelFilter {
  name?: string
  brandId?: number
}

/** Models this partner may sell now: attributed, not marked unavailable, active. */
function visibleModels(db: Reader, partnerId: number) {
  return db
    .selectFrom('models')
    .innerJoin('partner_models', (join) =>
      join.onRef('partner_models.model_id', '=', 'models.id').on('partner_models.partner_id', '=', partnerId),
    )
    .where('partner_models.unavailable', '=', false)
    .where('models.active', '=', true)
}

/**
 * Sort key for names: case-insensitive, so that `realme` sorts before `Samsung`, and in code point
 * order on both databases (PostgreSQL's default collation may be linguistic; SQLite has none);
 * callers add the id as the final tie-breaker. SQLite's lower() is JavaScript's (db/sqlite.ts).
 */
function byName(db: Reader, column: 'brands.name' | 'models.name') {
  return codePointLower(db, column)
}

/** A brand is the partner's when it has at least one model the partner may sell. */
function partnerBrands(db: Reader, partnerId: number) {
  return db
    .selectFrom('brands')
    .where((eb) =>
      eb.exists(
        visibleModels(db, partnerId)
          .select(sql`1`.as('one'))
          .where('models.brand_id', '=', sql.ref<number>('brands.id')),
      ),
    )
}

export async function listBrands(db: Reader, partnerId: number, offset: number, limit: number) {
  const [rows, count] = await Promise.all([
    partnerBrands(db, partnerId)
      .select(['id', 'name'])
      .orderBy(byName(db, 'brands.name'))
      .orderBy('id')
      .offset(offset)
      .limit(limit)
      .execute(),
    partnerBrands(db, partnerId)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ])
  return { rows: rows as BrandRow[], total: Number(count.total) }
}

export async function findBrand(
  db: Reader,
  partnerId: number,
  brandId: number,
): Promise<BrandRow | undefined> {
  return partnerBrands(db, partnerId).select(['id', 'name']).where('id', '=', brandId).executeTakeFirst()
}

export async function listBrandModels(db: Reader, partnerId: number, brandId: number): Promise<ModelRow[]> {
  return modelQuery(db, partnerId)
    .where('models.brand_id', '=', brandId)
    .orderBy(byName(db, 'models.name'))
    .orderBy('models.id')
    .execute()
}

export async function countBrandModels(db: Reader, partnerId: number, brandId: number): Promise<number> {
  const row = await visibleModels(db, partnerId)
    .where('models.brand_id', '=', brandId)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow()
  return Number(row.total)
}

function modelQuery(db: Reader, partnerId: number) {
  return visibleModels(db, partnerId)
    .innerJoin('brands', 'brands.id', 'models.brand_id')
    .select([
      'models.id',
      'models.name',
      'models.brand_id',
      'brands.name as brand_name',
      'models.default_lmi',
    ])
}

function applyFilter(filter: ModelFilter) {
  return (eb: ExpressionBuilder<Database, 'models'>) => {
    const conditions = []
    if (filter.brandId !== undefined) conditions.push(eb('models.brand_id', '=', filter.brandId))
    if (filter.name) {
      const pattern = `%${filter.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
      // The database lowers both sides alike (on SQLite with JavaScript's lower(), db/sqlite.ts).
      conditions.push(sql<boolean>`lower(${sql.ref('models.name')}) like lower(${pattern}) escape '\\'`)
    }
    return eb.and(conditions)
  }
}

export async function listModels(
  db: Reader,
  partnerId: number,
  filter: ModelFilter,
  offset: number,
  limit: number,
) {
  const [rows, count] = await Promise.all([
    modelQuery(db, partnerId)
      .where(applyFilter(filter))
      .orderBy(byName(db, 'brands.name'))
      .orderBy('brands.id')
      .orderBy(byName(db, 'models.name'))
      .orderBy('models.id')
      .offset(offset)
      .limit(limit)
      .execute(),
    visibleModels(db, partnerId)
      .where(applyFilter(filter))
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.total) }
}

// Run on every quotation and contract: built and compiled once (see prepared()).
const model = prepared((db: Reader, partnerId: number, modelId: number) =>
  modelQuery(db, partnerId).where('models.id', '=', modelId),
)

export async function findModel(
  db: Reader,
  partnerId: number,
  modelId: number,
): Promise<ModelRow | undefined> {
  return (await model(db, partnerId, modelId))[0]
}

/** The brand named `name`, added at `now` unless there; its id. */
export async function upsertBrand(trx: Trx, name: string, now: string): Promise<number> {
  const { id } = await trx
    .insertInto('brands')
    .values({ name, created_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ name: eb.ref('excluded.name') })))
    .returning('id')
    .executeTakeFirstOrThrow()
  return id
}

/** Adds the brand's model, or updates its default LMI and active flag (unless `keepExisting`). */
export async function upsertModel(
  trx: Trx,
  values: Insertable<ModelsTable> & { default_lmi: number; active: boolean },
  { keepExisting }: { keepExisting: boolean },
): Promise<void> {
  await trx
    .insertInto('models')
    .values(values)
    .onConflict((oc) => {
      const existing = oc.columns(['brand_id', 'name'])
      return keepExisting
        ? existing.doNothing()
        : existing.doUpdateSet({ default_lmi: values.default_lmi, active: values.active })
    })
    .execute()
}
