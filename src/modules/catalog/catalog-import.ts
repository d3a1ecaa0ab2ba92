import { type Static, Type } from 'typebox'
import { Value } from 'typebox/value'
import type { Trx } from '../../db/database.js'
import { ValidationError } from '../../shared/errors.js'
import { amountToCents } from '../../shared/money.js'
import { ANY_CONTROL_CHARACTER, BIDI_CONTROL, LONE_SURROGATE } from '../../shared/text.js'
import { upsertBrand, upsertModel } from './catalog.repository.js'

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

/**
 * Checks a catalog file; a malformed one is refused whole, the error naming where
 * (`/brands/0/models/3/name`). Names come back without the spaces around them.
 */
export function parseCatalog(content: unknown): CatalogFile {
  // Trimmed before the check, so a name of spaces fails `minLength` and the length limits count
  // what is stored.
  const trimmed = trimNames(content)
  const first = Value.Errors(CatalogFile, trimmed)[0]
  if (first) throw invalid(first.instancePath, first.message)
  const catalog = trimmed as CatalogFile
  for (const [b, brand] of catalog.brands.entries()) {
    const brandProblem = nameProblem(brand.name)
    if (brandProblem) throw invalid(`/brands/${b}/name`, brandProblem)
    for (const [m, model] of brand.models.entries()) {
      const where = `/brands/${b}/models/${m}`
      const modelProblem = nameProblem(model.name)
      if (modelProblem) throw invalid(`${where}/name`, modelProblem)
      if (amountToCents(model.default_lmi) === null) {
        throw invalid(`${where}/default_lmi`, 'must have at most two decimals')
      }
    }
  }
  return catalog
}

// A name is one line of text that partners show their customers: no control character at all.
function nameProblem(name: string): string | null {
  if (ANY_CONTROL_CHARACTER.test(name)) return 'must not contain control characters'
  if (LONE_SURROGATE.test(name)) return 'must not contain half of a surrogate pair'
  if (BIDI_CONTROL.test(name)) return 'must not contain bidirectional control characters'
  return null
}

function invalid(where: string, message: string): ValidationError {
  return ValidationError.field(
    where || 'catalog',
    `Invalid catalog${where ? ` at ${where}` : ''}: ${message}`,
  )
}

/** A copy of the file with its brand and model names trimmed; any other shape is left to the check. */
function trimNames(content: unknown): unknown {
  const trim = (entry: unknown) =>
    isObject(entry) && typeof entry.name === 'string' ? { ...entry, name: entry.name.trim() } : entry
  if (!isObject(content) || !Array.isArray(content.brands)) return content
  return {
    ...content,
    brands: content.brands.map((brand) => {
      const trimmedBrand = trim(brand)
      if (!isObject(trimmedBrand) || !Array.isArray(trimmedBrand.models)) return trimmedBrand
      return { ...trimmedBrand, models: trimmedBrand.models.map(trim) }
    }),
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Upserts brands by name and models by brand and name (a name given twice: the last entry wins);
 * returns how many distinct brands and models the file holds. Names are stored as given: parse
 * the file with parseCatalog first. With `keepExisting`, models already in the catalog keep their
 * default LMI and active flag, and only the missing ones are added.
 */
export async function importCatalog(
  trx: Trx,
  catalog: CatalogFile,
  now: string,
  { keepExisting = false }: { keepExisting?: boolean } = {},
) {
  const brands = new Set<number>()
  const models = new Set<string>()
  for (const brand of catalog.brands) {
    const brandId = await upsertBrand(trx, brand.name, now)
    for (const model of brand.models) {
      const values = {
        brand_id: brandId,
        name: model.name,
        default_lmi: amountToCents(model.default_lmi) as number,
        active: model.active ?? true,
        created_at: now,
      }
      await upsertModel(trx, values, { keepExisting })
      models.add(`${brandId}\n${values.name}`)
    }
    brands.add(brandId)
  }
  return { brands: brands.size, models: models.size }
}
