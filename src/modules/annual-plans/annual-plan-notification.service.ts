import type { Trx } from '../../db/database.js'
import type { Moment } from '../../shared/clock.js'
import { GatewayModeError, StateError } from '../../shared/errors.js'
import type { PartnerContext } from '../auth/partner-context.js'
import type { AnnualPlanRow } from './annual-plan.repository.js'
import { markPaid, paidColumns } from './annual-plan-payment.repository.js'
import { paymentAt, recordInLedger } from './annual-plan-payment.service.js'
import { statusAt } from './coverage.js'

/** The refusals of a notification: the wrong gateway mode, or a canceled plan. */
export function assertNotifiable(partner: PartnerContext, plan: AnnualPlanRow, now: string): void {
  if (partner.gateway !== 'external') {
    throw new GatewayModeError(
      'This partner uses the own gateway: pay annual plans with POST /annual-plans/{id}/payment.',
    )
  }
  if (statusAt(plan, now) === 'canceled') throw new StateError('The annual plan is canceled.')
}

/**
 * The partner collected the payment itself: the plan is paid once. A repeat, or a notification
 * racing another, finds it paid already and writes nothing (the conditional update decides).
 * Answers the plan as this call paid it, or null when it was not this call.
 */
export async function recordNotifiedPayment(
  trx: Trx,
  plan: AnnualPlanRow,
  moment: Moment,
): Promise<AnnualPlanRow | null> {
  const payment = paymentAt(plan, moment)
  if (!(await markPaid(trx, plan.id, payment))) return null
  await recordInLedger(
    trx,
    plan,
    { route: 'notification', outcome: 'recorded', transactionId: null },
    moment.now,
  )
  return { ...plan, ...paidColumns(payment) }
}
