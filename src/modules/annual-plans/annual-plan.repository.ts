import type { ExpressionBuilder, Insertable, Selectable } from 'kysely'
import type { Database, Db, Trx } from '../../db/database.js'
import { claimLease, notHeld, releaseLease } from '../../db/lease.js'
import { inPartnerScope, type PartnerScope } from '../../db/partner-scope.js'
import { nextPolicySerial } from '../../db/policy-sequence.js'
import { CUSTOMER_VIEW_COLUMNS, customerIdsWithDocument } from '../customers/customer-view.repository.js'
import { recordPayment } from '../payments/payment.repository.js'
import type { PaymentChannel, PaymentOutcome } from '../payments/payment.table.js'
import type {
  AnnualPlanCancellationsTable,
  AnnualPlanStatus,
  AnnualPlansTable,
  Payment,
} from './annual-plan.table.js'

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

export async function findAnnualPlanView(db: Db, partnerId: number, id: number) {
  return views(db).where('ap.partner_id', '=', partnerId).where('ap.id', '=', id).executeTakeFirst()
}

/** A plan's view by id alone, whoever's it is: for its events, written by the module itself. */
export async function findAnnualPlanViewById(db: Db, id: number) {
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

// — Payment —

/**
 * Claims an unpaid plan for one card charge until `until`, in a transaction of its own (committed
 * before the gateway is called): of concurrent callers exactly one gets true, so a plan is never
 * charged twice. A claim older than `now` was abandoned (its process died mid-charge) and may be
 * taken over.
 */
export function claimForCharge(trx: Trx, id: number, now: string, until: string): Promise<boolean> {
  return claimLease(trx, 'annual_plans', id, { now, until }, (claim) =>
    claim.where('status', '=', 'awaiting_payment'),
  )
}

/** Ends our claim, and only ours: one that expired and was taken over stays with its new holder. */
export async function releaseClaim(trx: Trx, id: number, until: string): Promise<void> {
  await releaseLease(trx, 'annual_plans', id, until)
}

/** What a payment writes on its plan, the card's columns aside. */
export function paidColumns(payment: Payment) {
  return {
    status: 'paid' as const,
    paid_at: payment.paidAt,
    starts_at: payment.startsAt,
    ends_at: payment.endsAt,
    policy_number: payment.policyNumber,
    certificate_code: payment.certificateCode,
    locked_until: null,
    updated_at: payment.paidAt,
  }
}

/**
 * Moves a plan from `awaiting_payment` to `paid`. The condition on the status is the guard: of
 * concurrent confirmations exactly one updates the row (and the caller writes the ledger only
 * then); the others get false and write nothing.
 */
export async function markPaid(
  trx: Trx,
  id: number,
  payment: Payment & { card?: { brand: string; last4: string; installments: number } },
): Promise<boolean> {
  const { card } = payment
  const result = await trx
    .updateTable('annual_plans')
    .set({
      ...paidColumns(payment),
      ...(card && {
        payment_method: 'credit_card' as const,
        payment_installments: card.installments,
        card_brand: card.brand,
        card_last4: card.last4,
      }),
    })
    .where('id', '=', id)
    .where('status', '=', 'awaiting_payment')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

// — Cancellation —

export type CancellationRow = Selectable<AnnualPlanCancellationsTable>

/** The plan's cancellation; there is at most one (unique index on the plan). */
export async function findCancellation(db: Db, planId: number): Promise<CancellationRow | undefined> {
  return db
    .selectFrom('annual_plan_cancellations')
    .selectAll()
    .where('annual_plan_id', '=', planId)
    .executeTakeFirst()
}

/**
 * Inserts unless a unique value is taken: the plan's (a concurrent request won; the caller reads
 * its row) or, very rarely, the protocol (the caller draws another).
 */
export async function insertCancellation(
  trx: Trx,
  values: Insertable<AnnualPlanCancellationsTable>,
): Promise<boolean> {
  const result = await trx
    .insertInto('annual_plan_cancellations')
    .values(values)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
}

/** The plan's resource changed without its own columns changing (its cancellation did). */
export async function touchAnnualPlan(trx: Trx, id: number, now: string): Promise<void> {
  await trx.updateTable('annual_plans').set({ updated_at: now }).where('id', '=', id).execute()
}

/**
 * Cancels the plan unless it already is, or a card charge holds it (whose approval would then
 * find a canceled plan). Returns the row as the update left it: on PostgreSQL the update waits
 * for a concurrent payment to commit, so the refund is computed from the payment it made.
 */
export async function cancelPlan(trx: Trx, planId: number, now: string): Promise<AnnualPlanRow | undefined> {
  return trx
    .updateTable('annual_plans')
    .set({ status: 'canceled', updated_at: now })
    .where('id', '=', planId)
    .where('status', '!=', 'canceled')
    .where(notHeld(now))
    .returningAll()
    .executeTakeFirst()
}

export async function markConfirmed(
  trx: Trx,
  id: number,
  confirmation: { confirmed_at: string; refund_amount: number; refund_due_date: string },
): Promise<void> {
  await trx
    .updateTable('annual_plan_cancellations')
    .set({ status: 'confirmed', ...confirmation })
    .where('id', '=', id)
    .where('status', '=', 'requested')
    .execute()
}

/**
 * Confirms the plan's cancellation as ended by a settled claim, without a refund: the open request,
 * if any, is confirmed with that reason, otherwise a confirmed one is written with `protocol`.
 */
export async function confirmClaimSettledCancellation(
  trx: Trx,
  planId: number,
  protocol: string,
  now: string,
): Promise<void> {
  const confirmation = {
    status: 'confirmed' as const,
    reason: 'claim_settled',
    confirmed_at: now,
    refund_amount: 0,
    refund_due_date: null,
  }
  const updated = await trx
    .updateTable('annual_plan_cancellations')
    .set(confirmation)
    .where('annual_plan_id', '=', planId)
    .where('status', '=', 'requested')
    .executeTakeFirst()
  if (Number(updated.numUpdatedRows) === 1) return
  await trx
    .insertInto('annual_plan_cancellations')
    .values({ annual_plan_id: planId, protocol, requested_at: now, ...confirmation })
    .execute()
}

/** What the coverage clock reads of a plan. */
export type CoverageLag = Pick<AnnualPlanRow, 'id' | 'status' | 'starts_at' | 'ends_at'>

/**
 * Plans whose stored status lags the clock at `now` (`paid` past `starts_at`, `paid` or `protected`
 * past `ends_at`): the API already shows the new status, the worker stores it.
 */
export async function findCoverageLags(
  db: Db,
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

/**
 * Stores the clock's status, `updated_at` at the boundary crossed; guarded by the status read, so
 * false when someone else stored it first.
 */
export async function persistCoverageStatus(
  trx: Trx,
  plan: CoverageLag,
  status: 'protected' | 'expired',
): Promise<boolean> {
  const boundary = status === 'expired' ? plan.ends_at : plan.starts_at
  if (boundary === null) return false
  const result = await trx
    .updateTable('annual_plans')
    .set({ status, updated_at: boundary })
    .where('id', '=', plan.id)
    .where('status', '=', plan.status)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Appends the plan's premium to the ledger: one row per charge attempt or notification. */
export async function recordInLedger(
  trx: Trx,
  plan: AnnualPlanRow,
  entry: {
    route: PaymentChannel
    outcome: PaymentOutcome
    transactionId: string | null
    declineCode?: string
  },
  now: string,
): Promise<void> {
  await recordPayment(trx, {
    partner_id: plan.partner_id,
    subscription_id: null,
    installment_id: null,
    annual_plan_id: plan.id,
    amount: plan.premium,
    route: entry.route,
    outcome: entry.outcome,
    decline_code: entry.declineCode ?? null,
    transaction_id: entry.transactionId,
    created_at: now,
  })
}

/** The next number of the policy sequence, drawn without a plan (policy-sequence.ts). */
export function takePolicySerial(trx: Trx): Promise<number> {
  return nextPolicySerial(trx)
}
