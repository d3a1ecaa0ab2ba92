import type { Db } from '../../db/database.js'
import { findModel, type ModelRow } from './catalog.repository.js'

export type { ModelRow }

/**
 * A model the partner may sell: active and attributed to it; undefined otherwise. What the model
 * route shows and what quotations and contracts price, so the three agree on availability.
 */
export async function availableModel(
  db: Db,
  partnerId: number,
  modelId: number,
): Promise<ModelRow | undefined> {
  return findModel(db, partnerId, modelId)
}
