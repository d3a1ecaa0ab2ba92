import type { ExpressionBuilder, Insertable, Selectable, Updateable } from 'kysely'
import { type Database, notHeld, type Reader, type Trx } from '../../db/database.js'
import { type PageWindow, pageByIds } from '../../db/page.js'
import { inPartnerScope, type PartnerScope } from '../../db/partner-scope.js'
import type { AnnualPlanStatus, AnnualPlansTable } from '../../db/tables/annual-plan.js'
import {
  CUSTOMER_VIEW_COLUMNS,
  contractsWithParties,
  customerIdsWithDocument,
} from '../contracts/contract.repository.js'

export type AnnualPlanRow = Selectable<AnnualPlansTable>

export async function insertAnnualPlan(trx: Trx, values: Insertable<AnnualPlansTable>): Promise<number> {
  const { id } = await trx.insertInto('annual_plans').values(values).returning('id').executeTakeFirstOrThrow()
  return id
}

/** The plan row alone, when it is this partner's: what the payment and cancellation rules read. */
export async function findAnnualPlanRow(
  db: Reader,
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
function views(db: Reader) {
  return contractsWithParties(db, 'annual_plans', 'ap')
    .leftJoin('annual_plan_cancellations as x', 'x.annual_plan_id', 'ap.id')
    .leftJoin('annual_plan_refunds as r', 'r.annual_plan_id', 'ap.id')
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
      'r.status as refund_status',
      'r.refunded_at as refunded_at',
    ])
}

export type AnnualPlanView = Awaited<ReturnType<ReturnType<typeof views>['executeTakeFirstOrThrow']>>

export async function findAnnualPlanView(db: Reader, partnerId: number, id: number) {
  return views(db).where('ap.partner_id', '=', partnerId).where('ap.id', '=', id).executeTakeFirst()
}

/** A plan's view by id alone, whoever's it is: for its events, written by the module itself. */
export async function findAnnualPlanViewById(db: Reader, id: number) {
  return views(db).where('ap.id', '=', id).executeTakeFirst()
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
      conditions.push(eb('ap.customer_id', 'in', customerIdsWithDocument(partnerId, filter.customerDocument)))
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
  db: Reader,
  partnerId: number,
  filter: AnnualPlanFilter,
  now: string,
  page: PageWindow,
) {
  return pageByIds(
    db.selectFrom('annual_plans as ap').where(matching(partnerId, filter, now)),
    (query) => query.select('ap.id'),
    page,
    (pageIds) =>
      views(db)
        .where('ap.partner_id', '=', partnerId)
        .where('ap.id', 'in', pageIds)
        .orderBy('ap.id', 'desc')
        .execute(),
  )
}

/** What the coverage clock reads of a plan. */
export type CoverageLag = Pick<AnnualPlanRow, 'id' | 'status' | 'starts_at' | 'ends_at'>

/**
 * Plans whose stored status lags the clock at `now` (`paid` past `starts_at`, `paid` or `protected`
 * past `ends_at`): the API already shows the new status, the worker stores it.
 */
export async function findCoverageLags(
  db: Reader,
  { now, limit, scope }: { now: string; limit: number; scope?: PartnerScope },
) {
  return db
    .selectFrom('annual_plans')
    .select(['id', 'status', 'starts_at', 'ends_at'])
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'paid'), eb('starts_at', '<=', now)]),
        eb.and([eb('status', '=', 'protected'), eb('ends_at', '<=', now)]),
      ]),
    )
    .where(inPartnerScope(scope, 'partner_id'))
    .orderBy('id')
    .limit(limit)
    .execute()
}

/** A plan whose card charge went to the gateway and was never recorded (it may have been approved). */
export const unrecordedCharge = ({ exists, selectFrom }: ExpressionBuilder<Database, 'annual_plans'>) =>
  exists(
    selectFrom('card_attempts')
      .select('card_attempts.id')
      .whereRef('card_attempts.annual_plan_id', '=', 'annual_plans.id')
      .where('card_attempts.recorded_at', 'is', null),
  )

type PlanChanges = Omit<Updateable<AnnualPlansTable>, 'id' | 'status' | 'partner_id' | 'created_at'> & {
  updated_at: string
}

/**
 * The only writer of a plan's status (README, Annual plans): moves plan `id` from one of `from`
 * (annual-plan.rules.ts ANNUAL_PLAN_FROM) to `to`, setting `changes` too; with `unheldAt`, only
 * while no card charge holds it then and none awaits its recording (whose approval would find the
 * plan moved). The conditions are the guard, so of two concurrent transitions exactly one updates
 * the row. Answers the row as the update left it (on PostgreSQL after a concurrent writer
 * committed), undefined when it did not move.
 */
export async function transitionAnnualPlan(
  trx: Trx,
  id: number,
  from: readonly AnnualPlanStatus[],
  to: AnnualPlanStatus,
  changes: PlanChanges,
  { unheldAt }: { unheldAt?: string } = {},
): Promise<AnnualPlanRow | undefined> {
  let update = trx
    .updateTable('annual_plans')
    .set({ ...changes, status: to })
    .where('id', '=', id)
    .where('status', 'in', [...from])
  if (unheldAt !== undefined)
    update = update.where(notHeld(unheldAt)).where((eb) => eb.not(unrecordedCharge(eb)))
  return update.returningAll().executeTakeFirst()
}
