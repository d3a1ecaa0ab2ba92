import type { GatewayMode } from '../../db/tables/partner.js'

/** What every authenticated request knows about its partner; every module's services take it. */
export interface PartnerContext {
  partnerId: number
  gateway: GatewayMode
  lmiMinFactorBp: number
  lmiMaxFactorBp: number
}
