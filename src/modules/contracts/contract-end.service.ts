import type { Trx } from '../../db/database.js'
import { endByClaimSettlement } from '../annual-plans/annual-plan-cancellation.service.js'
import type { RenderingContext } from '../events/event.service.js'
import { cancelForReason } from '../subscriptions/subscription-cancellation.service.js'
import type { ContractRef } from './contract-reference.js'

/** Why a contract is ended by another module's decision. */
export type EndReason = 'claim_settled'

/**
 * Ends the partner's contract for `reason`, in the caller's transaction, by its product's own
 * cancellation: a claim settled by replacement or indemnity (README, Claims) cancels a
 * subscription or an annual plan; one canceled or expired already has nothing left to end.
 */
export async function endContract(
  trx: Trx,
  partnerId: number,
  ref: ContractRef,
  reason: EndReason,
  now: string,
  rendering: RenderingContext,
): Promise<void> {
  if ('subscriptionId' in ref) {
    const ending = { reason, comment: null, whenEnded: 'keep' } as const
    await cancelForReason(trx, partnerId, ref.subscriptionId, ending, now, rendering)
  } else {
    await endByClaimSettlement(trx, partnerId, ref.annualPlanId, now, rendering)
  }
}
