import type { Db, Reader } from '../../db/database.js'
import { NotFoundError } from '../../shared/errors.js'
import {
  type BrandRow,
  countBrandModels,
  findBrand,
  findModel,
  listBrandModels,
  listBrands,
  listModels,
  type ModelFilter,
  type ModelRow,
} from './catalog.repository.js'

export type { ModelRow }

/** The brands this partner may sell, by name: one page of them and their total. */
export function brandPage(db: Db, partnerId: number, offset: number, limit: number) {
  return listBrands(db, partnerId, offset, limit)
}

/** What `GET /brands/{id}` may attach to a brand (`include=models,modelCount`). */
export interface BrandIncludes {
  models: boolean
  modelCount: boolean
}

/** One brand this partner may sell, with what was asked of its models; 404 when it sells none. */
export async function showBrand(
  db: Db,
  partnerId: number,
  brandId: number,
  include: BrandIncludes,
): Promise<{ brand: BrandRow; modelCount?: number; models?: ModelRow[] }> {
  const brand = await findBrand(db, partnerId, brandId)
  if (!brand) throw new NotFoundError('Brand')
  return {
    brand,
    modelCount: include.modelCount ? await countBrandModels(db, partnerId, brand.id) : undefined,
    models: include.models ? await listBrandModels(db, partnerId, brand.id) : undefined,
  }
}

/** The models this partner may sell, by brand and name: one page of them and their total. */
export function modelPage(db: Db, partnerId: number, filter: ModelFilter, offset: number, limit: number) {
  return listModels(db, partnerId, filter, offset, limit)
}

/**
 * A model the partner may sell: active and attributed to it; undefined otherwise. What the model
 * route shows and what quotations and contracts price, so the three agree on availability.
 */
export async function availableModel(
  db: Reader,
  partnerId: number,
  modelId: number,
): Promise<ModelRow | undefined> {
  return findModel(db, partnerId, modelId)
}

/** The model route's answer: the model the partner may sell, or 404. */
export async function showModel(db: Db, partnerId: number, modelId: number): Promise<ModelRow> {
  const model = await availableModel(db, partnerId, modelId)
  if (!model) throw new NotFoundError('Model')
  return model
}
