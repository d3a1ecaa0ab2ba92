import type { Trx } from '../../db/database.js'
import { StateError } from '../../shared/errors.js'
import { ANNUAL_PLAN_STATUS_LABELS, SUBSCRIPTION_STATUS_LABELS } from '../../shared/labels.js'
import { centsToAmount } from '../../shared/money.js'
import { statusAt as annualPlanStatusAt } from '../annual-plans/annual-plan.rules.js'
import { requireAnnualPlanRow } from '../annual-plans/annual-plan.service.js'
import { confirmCancellation, requestCancellation } from '../annual-plans/annual-plan-cancellation.service.js'
import type { RenderingContext } from '../events/event.service.js'
import { recordAudit } from '../operators/audit.service.js'
import { statusAt as subscriptionStatusAt } from '../subscriptions/subscription.rules.js'
import { requireSubscriptionState } from '../subscriptions/subscription.service.js'
import { cancelForReason } from '../subscriptions/subscription-cancellation.service.js'
import { withinWithdrawal } from './portal.rules.js'
import type { InsuredOrigin } from './portal-claims.service.js'
import type { ContractKind } from './portal-contracts.service.js'

// Arrependimento (README, Portal do segurado): the partner API's cancellations, on the insured's
// own contract within 7 days of contracting, audited as the insured's.

const WITHDRAWAL_COMMENT = 'Arrependimento do segurado (portal)'

export interface WithdrawalContract {
  id: number
  partner_id: number
  customer_id: number
  created_at: string
  now: string
}

function refuseLate(contract: WithdrawalContract) {
  if (!withinWithdrawal(contract.created_at, contract.now))
    throw new StateError('The 7 days to withdraw from this contract have passed.')
}

/**
 * A subscription is canceled for the insured's withdrawal (`insured_withdrawal`: not the partner's
 * request), its unpaid installments with it; an ended one → 422.
 */
export async function withdrawSubscription(
  trx: Trx,
  origin: InsuredOrigin,
  contract: WithdrawalContract,
  rendering: RenderingContext,
) {
  refuseLate(contract)
  const before = subscriptionStatusAt(
    await requireSubscriptionState(trx, contract.partner_id, contract.id),
    contract.now,
    rendering.timeZone,
  )
  if (before !== 'pago' && before !== 'pending')
    throw new StateError(`The subscription is ${before}: there is nothing left to withdraw from.`)
  await cancelForReason(
    trx,
    contract.partner_id,
    contract.id,
    { reason: 'insured_withdrawal', comment: WITHDRAWAL_COMMENT },
    contract.now,
    rendering,
  )
  const after = subscriptionStatusAt(
    await requireSubscriptionState(trx, contract.partner_id, contract.id),
    contract.now,
    rendering.timeZone,
  )
  await audit(trx, origin, contract, 'subscription', { status: before }, { status: after })
  return {
    kind: 'subscription' as const,
    id: contract.id,
    status: after,
    status_label: SUBSCRIPTION_STATUS_LABELS[after],
    refund_amount: null,
  }
}

/** An annual plan's cancellation is requested and confirmed at once, its refund as a partner's would be. */
export async function withdrawAnnualPlan(
  trx: Trx,
  origin: InsuredOrigin,
  contract: WithdrawalContract,
  rendering: RenderingContext,
) {
  refuseLate(contract)
  const plan = await requireAnnualPlanRow(trx, contract.partner_id, contract.id)
  const before = annualPlanStatusAt(plan, contract.now)
  if (before !== 'paid' && before !== 'protected')
    throw new StateError(`The annual plan is ${before}: there is nothing left to withdraw from.`)
  const { cancellation } = await requestCancellation(
    trx,
    contract.partner_id,
    contract.id,
    WITHDRAWAL_COMMENT,
    contract.now,
    rendering,
  )
  const refund = await confirmCancellation(
    trx,
    contract.partner_id,
    contract.id,
    cancellation.protocol,
    { now: contract.now, timeZone: rendering.timeZone },
    rendering,
  )
  const after = annualPlanStatusAt(
    await requireAnnualPlanRow(trx, contract.partner_id, contract.id),
    contract.now,
  )
  await audit(
    trx,
    origin,
    contract,
    'annual_plan',
    { status: before },
    { status: after, refund_amount: refund ?? 0 },
  )
  return {
    kind: 'annual_plan' as const,
    id: contract.id,
    status: after,
    status_label: ANNUAL_PLAN_STATUS_LABELS[after],
    refund_amount: refund === null ? null : centsToAmount(refund),
  }
}

async function audit(
  trx: Trx,
  origin: InsuredOrigin,
  contract: WithdrawalContract,
  kind: ContractKind,
  before: object,
  after: object,
) {
  await recordAudit(trx, {
    operator: { insured: contract.customer_id },
    action: 'portal.withdraw',
    recordType: kind,
    recordId: String(contract.id),
    before,
    after,
    ip: origin.ip,
    at: contract.now,
  })
}
