import type { Db, Trx } from '../../db/database.js'
import type { RefundStatus } from '../../db/tables/annual-plan.js'
import { NotFoundError } from '../../shared/errors.js'
import { requeueFailedRefund } from '../annual-plans/annual-plan-refund.service.js'
import type { RenderingContext } from '../events/event.service.js'
import { type AuditActor, recordAudit } from '../operators/audit.service.js'
import { pageOf } from './console.schemas.js'
import { findRefund, findRefundOfPlan, refundRows } from './refunds.repository.js'

// The refunds screen (README, Operator console: the operator API behind the screens). A retry is
// `amparo refund retry`'s too (retryRefund), audited in its transaction.

const iso = (instant: string | null) => (instant === null ? null : new Date(instant).toISOString())
const UNPAID: readonly RefundStatus[] = ['pending', 'failed']

export async function refundPage(
  db: Db,
  status: 'pending' | 'failed' | undefined,
  page: { page: number; perPage: number },
) {
  const { rows, total } = await refundRows(db, status ? [status] : UNPAID, {
    offset: (page.page - 1) * page.perPage,
    limit: page.perPage,
  })
  const data = rows.map((r) => ({
    id: r.id,
    annual_plan_id: r.annual_plan_id,
    policy_number: r.policy_number,
    partner: { id: r.partner_id, name: r.partner_name },
    customer_name: r.customer_name,
    amount_cents: Number(r.amount),
    status: r.status as 'pending' | 'failed',
    attempts: r.attempts,
    last_error: r.last_error,
    next_attempt_at: iso(r.next_attempt_at) as string,
    give_up_at: iso(r.give_up_at) as string,
    created_at: iso(r.created_at) as string,
  }))
  return pageOf(data, total, page.page, page.perPage)
}

const auditState = (r: NonNullable<Awaited<ReturnType<typeof findRefund>>>) => ({
  status: r.status,
  attempts: r.attempts,
  last_error: r.last_error,
  next_attempt_at: iso(r.next_attempt_at),
  give_up_at: iso(r.give_up_at),
})

/**
 * A failed refund pending again, due at once, with 3 more days of retries; not failed → 422. Chosen
 * by its id (the console) or its annual plan's (`amparo refund retry`), and audited alike by both:
 * `refund.retry` on record `refund` <id>, its state before → after.
 */
export async function retryRefund(
  trx: Trx,
  who: { operator: AuditActor; ip: string | null },
  which: { refundId: number } | { annualPlanId: number },
  now: string,
  rendering: RenderingContext,
) {
  const before =
    'refundId' in which
      ? await findRefund(trx, which.refundId)
      : await findRefundOfPlan(trx, which.annualPlanId)
  if (!before) throw new NotFoundError('Refund')
  const after = await requeueFailedRefund(trx, before.annual_plan_id, now, rendering)
  await recordAudit(trx, {
    ...who,
    action: 'refund.retry',
    recordType: 'refund',
    recordId: String(before.id),
    before: auditState(before),
    after: auditState(after),
    at: now,
  })
  return {
    id: after.id,
    annual_plan_id: after.annual_plan_id,
    amount_cents: Number(after.amount),
    status: after.status,
    attempts: after.attempts,
    last_error: after.last_error,
    next_attempt_at: iso(after.next_attempt_at) as string,
    give_up_at: iso(after.give_up_at) as string,
  }
}
