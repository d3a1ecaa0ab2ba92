import type { ExpressionBuilder, Insertable, Selectable } from 'kysely'
import type { Database, Db, Trx } from '../../db/database.js'
import { CUSTOMER_VIEW_COLUMNS } from '../customers/customer-view.js'
import type { AnnualPlanStatus, AnnualPlansTable } from './annual-plan.table.js'

export type AnnualPlanRow = Selectable<AnnualPlansTable>

export async function insertAnnualPlan(trx: Trx, values: Insertable<AnnualPlansTable>): Promise<number> {
  const { id } = await trx.insertInto('annual_plans').values(values).returning('id').executeTakeFirstOrThrow()
  return id
}

/** The plan row alone, when it is this partner's: what the payment and cancellation rules read. */
export async function findAnnualPlanRow(
  db: Db,
  partnerId: number,
  id: number,
): Promise<AnnualPlanRow | undefined> {
  return db
    .selectFrom('annual_plans')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** A plan with everything its resource shows: plan, customer, model, brand and cancellation. */
function views(db: Db) {
  return db
    .selectFrom('annual_plans as ap')
    .innerJoin('plans as p', 'p.id', 'ap.plan_id')
    .innerJoin('customers as c', 'c.id', 'ap.customer_id')
    .innerJoin('models as m', 'm.id', 'ap.model_id')
    .innerJoin('brands as b', 'b.id', 'm.brand_id')
    .leftJoin('annual_plan_cancellations as x', 'x.annual_plan_id', 'ap.id')
    .selectAll('ap')
    .select([
      'p.name as plan_name',
      'p.coverages as plan_coverages',
      'm.name as model_name',
      'b.id as brand_id',
      'b.name as brand_name',
      ...CUSTOMER_VIEW_COLUMNS,
      'x.protocol as cancellation_protocol',
      'x.status as cancellation_status',
      'x.reason as cancellation_reason',
      'x.requested_at as cancellation_requested_at',
      'x.confirmed_at as cancellation_confirmed_at',
      'x.refund_amount as cancellation_refund_amount',
      'x.refund_due_date as cancellation_refund_due_date',
    ])
}

export type AnnualPlanView = Awaited<ReturnType<ReturnType<typeof views>['executeTakeFirstOrThrow']>>

export async function findAnnualPlanView(db: Db, partnerId: number, id: number) {
  return views(db).where('ap.partner_id', '=', partnerId).where('ap.id', '=', id).executeTakeFirst()
}

export interface AnnualPlanFilter {
  /** The status the clock gives at `now`, not the stored one (which the worker moves later). */
  status?: AnnualPlanStatus
  /** Normalised. */
  customerDocument?: string
}

type PlansDb = Database & { ap: AnnualPlansTable }
const PAID: AnnualPlanStatus[] = ['paid', 'protected', 'expired']

/** `statusAt` as a condition: a paid plan's status follows its coverage window, not its column. */
function statusIs(eb: ExpressionBuilder<PlansDb, 'ap'>, status: AnnualPlanStatus, now: string) {
  if (status === 'awaiting_payment' || status === 'canceled') return eb('ap.status', '=', status)
  const paid = eb('ap.status', 'in', PAID)
  if (status === 'paid') return eb.and([paid, eb('ap.starts_at', '>', now)])
  if (status === 'protected') return eb.and([paid, eb('ap.starts_at', '<=', now), eb('ap.ends_at', '>', now)])
  return eb.and([paid, eb('ap.ends_at', '<=', now)])
}

function matching(partnerId: number, filter: AnnualPlanFilter, now: string) {
  return (eb: ExpressionBuilder<PlansDb, 'ap'>) => {
    const conditions = [eb('ap.partner_id', '=', partnerId)]
    if (filter.status) conditions.push(statusIs(eb, filter.status, now))
    if (filter.customerDocument !== undefined) {
      conditions.push(
        eb(
          'ap.customer_id',
          'in',
          eb
            .selectFrom('customers')
            .select('customers.id')
            .where('customers.partner_id', '=', partnerId)
            .where('customers.document', '=', filter.customerDocument),
        ),
      )
    }
    return eb.and(conditions)
  }
}

/**
 * The partner's plans matching the filter at `now`, newest first. The page is chosen over ids
 * alone (the partner index) and only its rows are joined: skipped rows do not pay for the five
 * joins. Still an OFFSET and a count, so the cost grows with the partner's plans, far more slowly
 * than before; the subscription list's counter and sequence (migration 0006) is the next step if
 * a partner's annual plans ever reach the hundreds of thousands.
 */
export async function listAnnualPlanViews(
  db: Db,
  partnerId: number,
  filter: AnnualPlanFilter,
  now: string,
  page: { offset: number; limit: number },
) {
  const pageIds = db
    .selectFrom('annual_plans as ap')
    .select('ap.id')
    .where(matching(partnerId, filter, now))
    .orderBy('ap.id', 'desc')
    .offset(page.offset)
    .limit(page.limit)
  const [rows, count] = await Promise.all([
    views(db)
      .where('ap.partner_id', '=', partnerId)
      .where('ap.id', 'in', pageIds)
      .orderBy('ap.id', 'desc')
      .execute(),
    db
      .selectFrom('annual_plans as ap')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where(matching(partnerId, filter, now))
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.total) }
}
