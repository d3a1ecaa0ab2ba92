import type { ExpressionBuilder, Selectable } from 'kysely'
import type { Database, Reader, Trx } from '../../db/database.js'
import { intRange } from '../../db/database.js'
import { pageByIds } from '../../db/page.js'
import { prepared } from '../../db/prepared.js'
import type {
  InstallmentsTable,
  SubscriptionStatus,
  SubscriptionsTable,
} from '../../db/tables/subscription.js'
import {
  CUSTOMER_VIEW_COLUMNS,
  contractsWithParties,
  customerIdsWithDocument,
} from '../contracts/contract.repository.js'

export type InstallmentRow = Selectable<InstallmentsTable>

/** A subscription with everything its resource shows: plan, customer, model and brand. */
function views(db: Reader) {
  return contractsWithParties(db, 'subscriptions', 's').select([
    's.id',
    's.partner_id',
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
    's.ends_on',
    's.policy_number',
    's.certificate_code',
    's.cancel_reason',
    's.cancel_comment',
    's.created_at',
    's.updated_at',
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

// The hot reads (a resource, a page, the counter) are built and compiled once (see prepared()):
// building the five-table select cost more than SQLite takes to answer it.
const subscriptionView = prepared((db: Reader, partnerId: number, id: number) =>
  views(db).where('s.partner_id', '=', partnerId).where('s.id', '=', id),
)
const sequenceRange = prepared((db: Reader, partnerId: number, oldest: number, newest: number) =>
  views(db)
    .where('s.partner_id', '=', partnerId)
    .where(intRange(db, 's.partner_seq', oldest, newest))
    .orderBy('s.partner_seq', 'desc'),
)
const subscriptionCount = prepared((db: Reader, partnerId: number) =>
  db.selectFrom('partner_subscription_counts').select('total').where('partner_id', '=', partnerId),
)

export async function findSubscriptionView(db: Reader, partnerId: number, id: number) {
  return (await subscriptionView(db, partnerId, id))[0]
}

/** A subscription's view by id alone, whoever's it is: for its events, written by the module itself. */
export async function findSubscriptionViewById(db: Reader, id: number) {
  return (await subscriptionViewById(db, id))[0]
}

/** An installment with its subscription's partner: for its events. */
export async function findInstallmentOwner(db: Reader, id: number) {
  return (await installmentOwner(db, id))[0]
}

// Read for every event a payment writes (`installment.paid`, `subscription.activated`): compiled
// once, as the reads above (docs/benchmarks.md, Stripe events).
const subscriptionViewById = prepared((db: Reader, id: number) => views(db).where('s.id', '=', id))
const installmentOwner = prepared((db: Reader, id: number) =>
  db
    .selectFrom('installments as i')
    .innerJoin('subscriptions as s', 's.id', 'i.subscription_id')
    .selectAll('i')
    .select('s.partner_id')
    .where('i.id', '=', id),
)

export interface SubscriptionFilter {
  /** As the API shows it at `today`: a `pago` one past its end is `expired`, recorded or not yet. */
  status?: SubscriptionStatus
  /** Normalised. */
  customerDocument?: string
  /** The partner's date ('YYYY-MM-DD', service zone), which splits `pago` from `expired`. */
  today: string
}

type SubscriptionsDb = Database & { s: SubscriptionsTable }

/** The partner's subscriptions matching the filter, as a condition on `subscriptions as s`. */
function matching(partnerId: number, filter: SubscriptionFilter) {
  return (eb: ExpressionBuilder<SubscriptionsDb, 's'>) => {
    const conditions = [eb('s.partner_id', '=', partnerId)]
    if (filter.status === 'pago') {
      conditions.push(eb('s.status', '=', 'pago'), eb('s.ends_on', '>', filter.today))
    } else if (filter.status === 'expired') {
      conditions.push(eb('s.status', 'in', ['pago', 'expired']), eb('s.ends_on', '<=', filter.today))
    } else if (filter.status) conditions.push(eb('s.status', '=', filter.status))
    if (filter.customerDocument !== undefined) {
      conditions.push(eb('s.customer_id', 'in', customerIdsWithDocument(partnerId, filter.customerDocument)))
    }
    return eb.and(conditions)
  }
}

/** The partner's subscriptions, newest first. */
export async function listSubscriptionViews(
  db: Reader,
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
async function listAll(db: Reader, partnerId: number, offset: number, limit: number) {
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
  db: Reader,
  partnerId: number,
  filter: SubscriptionFilter,
  offset: number,
  limit: number,
) {
  return pageByIds(
    db.selectFrom('subscriptions as s').where(matching(partnerId, filter)),
    (query) => query.select('s.id'),
    { offset, limit },
    (pageIds) =>
      views(db)
        .where('s.partner_id', '=', partnerId)
        .where('s.id', 'in', pageIds)
        .orderBy('s.id', 'desc')
        .execute(),
  )
}

export async function listInstallments(db: Reader, subscriptionId: number): Promise<InstallmentRow[]> {
  return db
    .selectFrom('installments')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .orderBy('number')
    .execute()
}

/** The partner's subscription's state (what payments and cancellation decide on), if it is theirs. */
export async function findSubscriptionState(db: Reader, partnerId: number, id: number) {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'status', 'ends_on', 'created_at', 'customer_id', 'card_token'])
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/**
 * The partner's active subscriptions with no card on file: contracted under the external gateway.
 * Under the own gateway nothing collects their later installments (notify-payment is refused under it,
 * and the recurrence has no card to charge), so the operator is told on switching.
 */
export async function activeSubscriptionsWithoutCard(db: Reader, partnerId: number): Promise<number> {
  const { count } = await db
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('partner_id', '=', partnerId)
    .where('status', '=', 'pago')
    .where('card_token', 'is', null)
    .executeTakeFirstOrThrow()
  return Number(count)
}

/** The partner's subscription's status and serials; undefined when it is not theirs. */
export async function findSubscriptionSerials(db: Reader, partnerId: number, id: number) {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'status', 'ends_on', 'serial_number', 'second_serial_number'])
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/**
 * Sets serials that are not set yet, on a subscription that is not canceled. The conditions are the
 * guard: false, with nothing written, when a concurrent request set one or canceled it first.
 */
export async function setSerials(
  trx: Trx,
  id: number,
  serials: { serial_number?: string; second_serial_number?: string },
  now: string,
): Promise<boolean> {
  let update = trx
    .updateTable('subscriptions')
    .set({ ...serials, updated_at: now })
    .where('id', '=', id)
    .where('status', '!=', 'canceled')
  if (serials.serial_number !== undefined) update = update.where('serial_number', 'is', null)
  if (serials.second_serial_number !== undefined) update = update.where('second_serial_number', 'is', null)
  const result = await update.executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
