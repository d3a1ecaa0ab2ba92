import type { Reader } from '../../db/database.js'
import type { RefundStatus } from '../../db/tables/annual-plan.js'

// The refunds screen (README, Operator console: the operator API behind the screens): refunds not yet paid, or given up.

export async function refundRows(
  db: Reader,
  statuses: readonly RefundStatus[],
  page: { offset: number; limit: number },
) {
  const matching = db.selectFrom('annual_plan_refunds as r').where('r.status', 'in', [...statuses])
  const [rows, count] = await Promise.all([
    matching
      .innerJoin('annual_plans as a', 'a.id', 'r.annual_plan_id')
      .innerJoin('partners as p', 'p.id', 'r.partner_id')
      .innerJoin('customers as c', 'c.id', 'a.customer_id')
      .select([
        'r.id',
        'r.annual_plan_id',
        'a.policy_number',
        'r.partner_id',
        'p.name as partner_name',
        'c.name as customer_name',
        'r.amount',
        'r.status',
        'r.attempts',
        'r.last_error',
        'r.next_attempt_at',
        'r.give_up_at',
        'r.created_at',
      ])
      .orderBy('r.created_at')
      .orderBy('r.id')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    matching.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.total) }
}

const REFUND_STATE = [
  'id',
  'annual_plan_id',
  'status',
  'attempts',
  'last_error',
  'next_attempt_at',
  'give_up_at',
] as const

export async function findRefund(db: Reader, id: number) {
  return db.selectFrom('annual_plan_refunds').select(REFUND_STATE).where('id', '=', id).executeTakeFirst()
}

/** The refund of an annual plan (one at most). */
export async function findRefundOfPlan(db: Reader, annualPlanId: number) {
  return db
    .selectFrom('annual_plan_refunds')
    .select(REFUND_STATE)
    .where('annual_plan_id', '=', annualPlanId)
    .executeTakeFirst()
}
