import { type Static, Type } from 'typebox'
import { Value } from 'typebox/value'
import type { Trx } from '../../db/database.js'
import { ValidationError } from '../../shared/errors.js'
import { amountToCents } from '../../shared/money.js'

/** The catalog file (README: "Catalog import format"). */
export const CatalogFile = Type.Object({
  brands: Type.Array(
    Type.Object({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      models: Type.Array(
        Type.Object({
          name: Type.String({ minLength: 1, maxLength: 150 }),
          // Up to R$ 100 billion: × the largest LMI factor (10) it stays within the quotations'
          // ceiling, and every amount stays exact as a JSON number.
          default_lmi: Type.Number({
            exclusiveMinimum: 0,
            maximum: 100_000_000_000,
            description: 'BRL, at most two decimals.',
          }),
          active: Type.Optional(Type.Boolean()),
        }),
      ),
    }),
  ),
})
export type CatalogFile = Static<typeof CatalogFile>

export function parseCatalog(content: unknown): CatalogFile {
  const first = Value.Errors(CatalogFile, content)[0]
  if (first) {
    const where = first.instancePath ? ` at ${first.instancePath}` : ''
    throw ValidationError.field(first.instancePath || 'catalog', `Invalid catalog${where}: ${first.message}`)
  }
  const catalog = content as CatalogFile
  for (const brand of catalog.brands) {
    for (const model of brand.models) {
      if (amountToCents(model.default_lmi) === null) {
        throw ValidationError.field('default_lmi', `Invalid default_lmi for ${brand.name} ${model.name}`)
      }
    }
  }
  return catalog
}

/**
 * Upserts brands by name and models by brand and name (a name given twice: the last entry wins);
 * returns how many distinct brands and models the file holds.
 */
export async function importCatalog(trx: Trx, catalog: CatalogFile, now: string) {
  const brands = new Set<number>()
  const models = new Set<string>()
  for (const brand of catalog.brands) {
    const { id: brandId } = await trx
      .insertInto('brands')
      .values({ name: brand.name.trim(), created_at: now })
      .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ name: eb.ref('excluded.name') })))
      .returning('id')
      .executeTakeFirstOrThrow()
    for (const model of brand.models) {
      const values = {
        brand_id: brandId,
        name: model.name.trim(),
        default_lmi: amountToCents(model.default_lmi) as number,
        active: model.active ?? true,
        created_at: now,
      }
      await trx
        .insertInto('models')
        .values(values)
        .onConflict((oc) =>
          oc
            .columns(['brand_id', 'name'])
            .doUpdateSet({ default_lmi: values.default_lmi, active: values.active }),
        )
        .execute()
      models.add(`${brandId}\n${values.name}`)
    }
    brands.add(brandId)
  }
  return { brands: brands.size, models: models.size }
}
