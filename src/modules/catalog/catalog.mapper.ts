import type { BrandRow, ModelRow } from './catalog.repository.js'
import type { Brand } from './catalog.schemas.js'

export function brandResource(brand: BrandRow, base: string): Brand {
  return { id: brand.id, name: brand.name, meta: { link: `${base}/brands/${brand.id}` } }
}

export function modelResource(
  model: Pick<ModelRow, 'id' | 'name' | 'brand_id' | 'brand_name'>,
  base: string,
) {
  return {
    id: model.id,
    name: model.name,
    brand: brandResource({ id: model.brand_id, name: model.brand_name }, base),
    meta: { link: `${base}/models/${model.id}` },
  }
}

export function modelSummary(model: ModelRow, base: string) {
  return { id: model.id, name: model.name, meta: { link: `${base}/models/${model.id}` } }
}
