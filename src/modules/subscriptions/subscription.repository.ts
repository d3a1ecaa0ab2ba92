import { type ExpressionBuilder, type Insertable, type Selectable, sql } from 'kysely'
import { type Database, type Db, isPostgres, type Trx } from '../../db/database.js'
import { nameStatement } from '../../db/postgres.js'
import { definedColumns, insertReturningId, insertRows, prepared } from '../../db/prepared.js'
import type { ModelRow } from '../catalog/catalog.repository.js'
import type { CustomerRow } from '../customers/customer.repository.js'
import { CUSTOMER_VIEW_COLUMNS, customerToView } from '../customers/customer-view.js'
import type { SubscriptionPlanRow } from '../plans/plan.repository.js'
import type { InstallmentsTable, SubscriptionStatus, SubscriptionsTable } from './subscription.table.js'

export type InstallmentRow = Selectable<InstallmentsTable>

/** A subscription as contracting writes it: every column the view shows, none left to a default. */
export type NewSubscription = Omit<Selectable<SubscriptionsTable>, 'id' | 'partner_seq' | 'card_token'>
type NewInstallment = Omit<Insertable<InstallmentsTable>, 'subscription_id'>

/**
 * Writes a subscription and its installments, numbering it in its partner's sequence.
 *
 * The counter comes first: on PostgreSQL its row stays locked until the caller commits, so a
 * partner's contracts take their numbers one after the other, and each takes its id (the identity
 * sequence) only once it holds the lock, which keeps `partner_seq` order equal to id order — the
 * list's "newest first" and the filtered lists (ordered by id) agree. Everything that can come
 * before the lock does (the service's reads and checks); after it come only the inserts. Incrementing
 * last (then updating the row's number) would hold the lock a little less but number concurrent
 * contracts out of id order, and write each subscription twice.
 */
export async function insertSubscription(
  trx: Trx,
  values: NewSubscription,
  installments: NewInstallment[],
): Promise<number> {
  if (isPostgres(trx)) return insertInOneStatement(trx, values, installments)
  const [counter] = await incrementCounter(trx, values.partner_id)
  if (!counter) throw new Error(`No counter row for partner ${values.partner_id}`)
  // The added column before the spread, not after: in Node 20's V8 a property added after a spread
  // costs ≈ 0.8 µs (see contractSubscription).
  const id = await insertReturningId(trx, 'subscriptions', { partner_seq: Number(counter.total), ...values })
  await insertRows(
    trx,
    'installments',
    installments.map((i) => ({ subscription_id: id, ...i })),
  )
  return id
}

// An upsert, so the first contract needs no separate insert. SQLite only: PostgreSQL runs the same
// upsert at the head of insertInOneStatement.
const incrementCounter = prepared((trx: Trx, partnerId: number) =>
  trx
    .insertInto('partner_subscription_counts')
    .values({ partner_id: partnerId, total: 1 })
    .onConflict((oc) =>
      oc
        .column('partner_id')
        .doUpdateSet((eb) => ({ total: eb('partner_subscription_counts.total', '+', 1) })),
    )
    .returning('total'),
)

/**
 * PostgreSQL: the same three writes as one statement (data-modifying CTEs, all run to completion),
 * so the partner's counter row is locked for two round trips, this one and the commit, instead of
 * four. The installments travel as one JSON array read with the table's own row type. The text
 * depends only on the columns given, so it runs as a named prepared statement.
 */
async function insertInOneStatement(trx: Trx, values: NewSubscription, installments: NewInstallment[]) {
  const columns = definedColumns(values)
  const installmentColumns = installments[0] ? definedColumns(installments[0]) : []
  const query = sql<{ id: number }>`
    with counter as (
      insert into partner_subscription_counts (partner_id, total) values (${values.partner_id}, 1)
      on conflict (partner_id) do update set total = partner_subscription_counts.total + 1
      returning total
    ), subscription as (
      insert into subscriptions (${sql.join(columns.map((c) => sql.ref(c)))}, partner_seq)
      select ${sql.join(columns.map((c) => values[c]))}, total from counter
      returning id
    ), installment as (
      insert into installments (subscription_id, ${sql.join(installmentColumns.map((c) => sql.ref(c)))})
      select subscription.id, ${sql.join(installmentColumns.map((c) => sql.ref(`i.${c}`)))}
      from subscription, json_populate_recordset(null::installments, ${JSON.stringify(installments)}::json) as i
    )
    select id from subscription`.compile(trx)
  nameStatement(query.sql)
  const { rows } = await trx.executeQuery(query)
  const row = rows[0]
  if (!row) throw new Error('The subscription insert returned no id')
  return row.id
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

/**
 * The view of a subscription just written, from the rows its contract read: what
 * findSubscriptionView would answer, without reading it back while the partner's counter is
 * locked (docs/decisions.md). Typed as the view, so a column added there must be added here.
 */
export function contractedView(
  id: number,
  subscription: NewSubscription,
  plan: Pick<SubscriptionPlanRow, 'id' | 'name' | 'coverages'>,
  customer: CustomerRow,
  model: ModelRow,
): SubscriptionView {
  return {
    id,
    status: subscription.status,
    lmi: subscription.lmi,
    monthly_premium: subscription.monthly_premium,
    franchise: subscription.franchise,
    installments_count: subscription.installments_count,
    store_id: subscription.store_id,
    origin: subscription.origin,
    serial_number: subscription.serial_number,
    second_serial_number: subscription.second_serial_number,
    is_used: subscription.is_used,
    card_brand: subscription.card_brand,
    card_last4: subscription.card_last4,
    canceled_at: subscription.canceled_at,
    cancel_reason: subscription.cancel_reason,
    created_at: subscription.created_at,
    plan_id: plan.id,
    plan_name: plan.name,
    plan_coverages: plan.coverages,
    model_id: model.id,
    model_name: model.name,
    brand_id: model.brand_id,
    brand_name: model.brand_name,
    ...customerToView(customer),
  }
}

// The hot reads (a resource, a page, the counter) are built and compiled once (see prepared()):
// building the five-table select cost more than SQLite takes to answer it.
const subscriptionView = prepared((db: Db, partnerId: number, id: number) =>
  views(db).where('s.partner_id', '=', partnerId).where('s.id', '=', id),
)
const sequenceRange = prepared((db: Db, partnerId: number, oldest: number, newest: number) =>
  views(db)
    .where('s.partner_id', '=', partnerId)
    .where((eb) =>
      isPostgres(db)
        ? // A range of parameters is estimated at 0.5 % of the partner's rows, so the generic plan
          // of this five-table join looked dearer than a custom one and PostgreSQL planned the
          // named statement anew on every call (2.4× its execution); the same numbers as a set
          // are estimated at a few rows, and the generic plan is kept.
          eb(
            's.partner_seq',
            '=',
            sql<number>`any(array(select generate_series(${oldest}::int, ${newest}::int)))`,
          )
        : eb.between('s.partner_seq', oldest, newest),
    )
    .orderBy('s.partner_seq', 'desc'),
)
const subscriptionCount = prepared((db: Db, partnerId: number) =>
  db.selectFrom('partner_subscription_counts').select('total').where('partner_id', '=', partnerId),
)

export async function findSubscriptionView(db: Db, partnerId: number, id: number) {
  return (await subscriptionView(db, partnerId, id))[0]
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

/** The partner's subscriptions, newest first. */
export async function listSubscriptionViews(
  db: Db,
  partnerId: number,
  filter: SubscriptionFilter,
  offset: number,
  limit: number,
) {
  if (filter.status === undefined && filter.customerDocument === undefined) {
    return listAll(db, partnerId, offset, limit)
  }
  return listMatching(db, partnerId, filter, offset, limit)
}

/**
 * Every subscription of the partner: the total is its counter and the page a range of its
 * sequence numbers, the same few index reads whatever the partner's size. A contract committed
 * between the two reads only adds a number above the range, so the page stays consistent.
 */
async function listAll(db: Db, partnerId: number, offset: number, limit: number) {
  const [counter] = await subscriptionCount(db, partnerId)
  const total = Number(counter?.total ?? 0)
  const newest = total - offset
  if (newest < 1) return { rows: [], total }
  const rows = await sequenceRange(db, partnerId, Math.max(1, newest - limit + 1), newest)
  return { rows, total }
}

/**
 * A filtered list still counts its rows, but pages over ids alone (an index) and joins only the
 * page's rows: skipped rows no longer pay for the four joins.
 */
async function listMatching(
  db: Db,
  partnerId: number,
  filter: SubscriptionFilter,
  offset: number,
  limit: number,
) {
  const pageIds = db
    .selectFrom('subscriptions as s')
    .select('s.id')
    .where(matching(partnerId, filter))
    .orderBy('s.id', 'desc')
    .limit(limit)
    .offset(offset)
  const [rows, count] = await Promise.all([
    views(db)
      .where('s.partner_id', '=', partnerId)
      .where('s.id', 'in', pageIds)
      .orderBy('s.id', 'desc')
      .execute(),
    db
      .selectFrom('subscriptions as s')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where(matching(partnerId, filter))
      .executeTakeFirstOrThrow(),
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

/** The partner's subscription's state (what payments and cancellation decide on), if it is theirs. */
export async function findSubscriptionState(db: Db, partnerId: number, id: number) {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'status', 'created_at'])
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst()
}
