import type { Trx } from '../../db/database.js'
import { AppError, NotFoundError, StateError } from '../../shared/errors.js'
import { formatDate } from '../../shared/time.js'
import { addDays } from '../subscriptions/schedule.js'
import { type AnnualPlanRow, findAnnualPlanRow } from './annual-plan.repository.js'
import {
  type CancellationRow,
  cancelPlan,
  findCancellation,
  insertCancellation,
  markConfirmed,
} from './annual-plan-cancellation.repository.js'
import type { Moment } from './annual-plan-payment.service.js'
import { statusAt } from './coverage.js'
import { newProtocol } from './protocol.js'
import { REFUND_DUE_DAYS, refundAt } from './refund.js'

/** Draws again only on a protocol collision, which at 50 random bits practically never happens. */
const PROTOCOL_ATTEMPTS = 3

/**
 * Opens the plan's cancellation, or returns the one already open: a repeat, or a request racing
 * another, gets the same protocol. The plan's status does not change until it is confirmed.
 */
export async function requestCancellation(
  trx: Trx,
  plan: AnnualPlanRow,
  reason: string | null,
  { now }: Moment,
): Promise<CancellationRow> {
  const status = statusAt(plan, now)
  if (status === 'canceled' || status === 'expired') {
    throw new StateError(`The annual plan is ${status}: there is nothing left to cancel.`)
  }
  for (let attempt = 0; attempt < PROTOCOL_ATTEMPTS; attempt++) {
    const open = await findCancellation(trx, plan.id)
    if (open) return open
    const values = {
      annual_plan_id: plan.id,
      protocol: newProtocol(),
      status: 'requested' as const,
      reason,
      requested_at: now,
    }
    await insertCancellation(trx, values)
  }
  throw new Error(`could not open a cancellation of annual plan ${plan.id}`)
}

/**
 * Confirms the plan's cancellation named by `protocol`: the plan is canceled and the refund fixed
 * (see `refundAmount`), due 15 days later. A repeat finds it confirmed and changes nothing.
 */
export async function confirmCancellation(
  trx: Trx,
  plan: AnnualPlanRow,
  protocol: string,
  { now, timeZone }: Moment,
): Promise<void> {
  const cancellation = await findCancellation(trx, plan.id)
  if (!cancellation || cancellation.protocol !== protocol) throw new NotFoundError('Cancellation')
  if (cancellation.status === 'confirmed') return
  const canceled = await cancelPlan(trx, plan.id, now)
  if (!canceled) {
    const current = await findAnnualPlanRow(trx, plan.partner_id, plan.id)
    // A concurrent confirmation won: it wrote the same confirmation this one would have.
    if (current?.status === 'canceled') return
    throw new AppError(409, 'A payment of this annual plan is in progress: confirm again in a moment.')
  }
  const confirmedOn = formatDate(now, timeZone)
  await markConfirmed(trx, cancellation.id, {
    confirmed_at: now,
    refund_amount: refundAt(canceled, now, timeZone),
    refund_due_date: addDays(confirmedOn, REFUND_DUE_DAYS),
  })
}
