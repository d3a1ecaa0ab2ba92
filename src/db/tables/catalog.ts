import type { Generated, SqlBool } from 'kysely'

export interface BrandsTable {
  id: Generated<number>
  name: string
  created_at: string
}

export interface ModelsTable {
  id: Generated<number>
  brand_id: number
  name: string
  /** Default maximum indemnity limit, in cents. */
  default_lmi: number
  active: SqlBool
  created_at: string
}

/** Which models a partner may sell; `unavailable` hides one without losing the attribution. */
export interface PartnerModelsTable {
  partner_id: number
  model_id: number
  unavailable: SqlBool
}
