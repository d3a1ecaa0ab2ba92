import type { ExpressionBuilder, Insertable, Selectable } from 'kysely'
import type { Database, Db, Trx } from '../../db/database.js'
import { CUSTOMER_VIEW_COLUMNS } from '../customers/customer-view.js'
import type { InstallmentsTable, SubscriptionStatus, SubscriptionsTable } from './subscription.table.js'

export type InstallmentRow = Selectable<InstallmentsTable>

export async function insertSubscription(
  trx: Trx,
  values: Insertable<SubscriptionsTable>,
  installments: Omit<Insertable<InstallmentsTable>, 'subscription_id'>[],
): Promise<number> {
  const { id } = await trx
    .insertInto('subscriptions')
    .values(values)
    .returning('id')
    .executeTakeFirstOrThrow()
  await trx
    .insertInto('installments')
    .values(installments.map((i) => ({ ...i, subscription_id: id })))
    .execute()
  return id
}

/** A subscription with everything its resource shows: plan, customer, model and brand. */
function views(db: Db) {
  return db
    .selectFrom('subscriptions as s')
    .innerJoin('plans as p', 'p.id', 's.plan_id')
    .innerJoin('customers as c', 'c.id', 's.customer_id')
    .innerJoin('models as m', 'm.id', 's.model_id')
    .innerJoin('brands as b', 'b.id', 'm.brand_id')
    .select([
      's.id',
      's.status',
      's.lmi',
      's.monthly_premium',
      's.franchise',
      's.installments_count',
      's.store_id',
      's.origin',
      's.serial_number',
      's.second_serial_number',
      's.is_used',
      's.card_brand',
      's.card_last4',
      's.canceled_at',
      's.cancel_reason',
      's.created_at',
      'p.id as plan_id',
      'p.name as plan_name',
      'p.coverages as plan_coverages',
      'm.id as model_id',
      'm.name as model_name',
      'b.id as brand_id',
      'b.name as brand_name',
      ...CUSTOMER_VIEW_COLUMNS,
    ])
}

export type SubscriptionView = Awaited<ReturnType<ReturnType<typeof views>['executeTakeFirstOrThrow']>>

export async function findSubscriptionView(db: Db, partnerId: number, id: number) {
  return views(db).where('s.partner_id', '=', partnerId).where('s.id', '=', id).executeTakeFirst()
}

export interface SubscriptionFilter {
  status?: SubscriptionStatus
  /** Normalised. */
  customerDocument?: string
}

type SubscriptionsDb = Database & { s: SubscriptionsTable }

/** The partner's subscriptions matching the filter, as a condition on `subscriptions as s`. */
function matching(partnerId: number, filter: SubscriptionFilter) {
  return (eb: ExpressionBuilder<SubscriptionsDb, 's'>) => {
    const conditions = [eb('s.partner_id', '=', partnerId)]
    if (filter.status) conditions.push(eb('s.status', '=', filter.status))
    if (filter.customerDocument !== undefined) {
      conditions.push(
        eb(
          's.customer_id',
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

function countQuery(db: Db) {
  return db.selectFrom('subscriptions as s').select((eb) => eb.fn.countAll<number>().as('total'))
}

/** The partner's subscriptions, newest first. */
export async function listSubscriptionViews(
  db: Db,
  partnerId: number,
  filter: SubscriptionFilter,
  offset: number,
  limit: number,
) {
  const [rows, count] = await Promise.all([
    views(db)
      .where(matching(partnerId, filter))
      .orderBy('s.id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute(),
    countQuery(db).where(matching(partnerId, filter)).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.total) }
}

export async function listInstallments(db: Db, subscriptionId: number): Promise<InstallmentRow[]> {
  return db
    .selectFrom('installments')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .orderBy('number')
    .execute()
}

export async function subscriptionExists(db: Db, partnerId: number, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('subscriptions')
    .select('id')
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row !== undefined
}
