import type { Compilable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import { lockingRows } from '../../db/dialect-sql.js'
import { prepared } from '../../db/prepared.js'

// The facts of the contract a claim names, read from the subscription and annual plan tables (a
// join of another module's tables is data-layer code: src/db/README.md): whose it is, its device,
// its money, its plan's claim terms, and what says whether it was in force. Each statement has one
// shape, built and compiled once (prepared()): an opening runs eight of them.

const PLAN_TERMS = ['p.coverage_types', 'p.claim_notice_days', 'p.max_claims_per_year'] as const

/**
 * The partner's subscription with its plan's claim terms and customer; undefined when not theirs.
 * On PostgreSQL the row is locked until commit, so two openings on one contract see each other's
 * claim (SQLite has one writer at a time already).
 */
const subscriptionContract = prepared((trx: Trx, partnerId: number, id: number) =>
  lockingRows(
    trx,
    trx
      .selectFrom('subscriptions as s')
      .innerJoin('plans as p', 'p.id', 's.plan_id')
      .innerJoin('customers as c', 'c.id', 's.customer_id')
      .select([
        's.id',
        's.status',
        's.ends_on',
        's.plan_id',
        's.customer_id',
        'c.document as customer_document',
        's.model_id',
        's.serial_number',
        's.second_serial_number',
        's.lmi',
        's.franchise',
        ...PLAN_TERMS,
      ])
      .where('s.partner_id', '=', partnerId)
      .where('s.id', '=', id),
    's',
  ),
)

export async function findSubscriptionContract(trx: Trx, partnerId: number, id: number) {
  const [row] = await subscriptionContract(trx, partnerId, id)
  return row
}

export type SubscriptionContract = NonNullable<Awaited<ReturnType<typeof findSubscriptionContract>>>

/** The subscription's installments in order: due dates and payments. */
export const findInstallmentFacts = prepared((db: Reader, subscriptionId: number) =>
  db
    .selectFrom('installments')
    .select(['number', 'due_date', 'status', 'paid_at'])
    .where('subscription_id', '=', subscriptionId)
    .orderBy('number'),
)

/** The latest card replacement (an approved card check) of the subscription at or before `until`. */
const lastCardChange = prepared((db: Reader, subscriptionId: number, until: string) =>
  db
    .selectFrom('card_checks')
    .select((eb) => eb.fn.max('created_at').as('at'))
    .where('subscription_id', '=', subscriptionId)
    .where('outcome', '=', 'approved')
    .where('created_at', '<=', until),
)

export async function findLastCardChange(db: Reader, subscriptionId: number, until: string) {
  const [row] = await lastCardChange(db, subscriptionId, until)
  return (row?.at as string | null | undefined) ?? null
}

/** The partner's annual plan with its plan's claim terms, customer and cancellation; locked like a subscription. */
const annualPlanContract = prepared((trx: Trx, partnerId: number, id: number) =>
  lockingRows(
    trx,
    trx
      .selectFrom('annual_plans as ap')
      .innerJoin('plans as p', 'p.id', 'ap.plan_id')
      .innerJoin('customers as c', 'c.id', 'ap.customer_id')
      .leftJoin('annual_plan_cancellations as x', 'x.annual_plan_id', 'ap.id')
      .select([
        'ap.id',
        'ap.status',
        'ap.plan_id',
        'ap.customer_id',
        'c.document as customer_document',
        'ap.model_id',
        'ap.imei',
        'ap.imei_2',
        'ap.lmi',
        'ap.franchise',
        'ap.starts_at',
        'ap.ends_at',
        'ap.updated_at',
        'x.confirmed_at as canceled_at',
        ...PLAN_TERMS,
      ])
      .where('ap.partner_id', '=', partnerId)
      .where('ap.id', '=', id),
    'ap',
  ),
)

export async function findAnnualPlanContract(trx: Trx, partnerId: number, id: number) {
  const [row] = await annualPlanContract(trx, partnerId, id)
  return row
}

export type AnnualPlanContract = NonNullable<Awaited<ReturnType<typeof findAnnualPlanContract>>>

type Contract = { subscriptionId: number } | { annualPlanId: number }
type ContractColumn = 'subscription_id' | 'annual_plan_id'

/** One prepared statement for each kind of contract: `build` with the contract's column. */
function byContract<A extends unknown[], R>(
  build: (column: ContractColumn) => (db: Reader, id: number, ...args: A) => Compilable<R>,
) {
  const bySubscription = prepared(build('subscription_id'))
  const byAnnualPlan = prepared(build('annual_plan_id'))
  return (db: Reader, contract: Contract, ...args: A) =>
    'subscriptionId' in contract
      ? bySubscription(db, contract.subscriptionId, ...args)
      : byAnnualPlan(db, contract.annualPlanId, ...args)
}

const openClaimOf = byContract(
  (column) => (db: Reader, id: number) =>
    db
      .selectFrom('claims')
      .select('id')
      .where(column, '=', id)
      .where('status', 'in', ['documents_pending', 'under_review', 'approved'])
      .limit(1),
)

/** Whether the contract has a claim still open (`documents_pending`, `under_review`, `approved`). */
export async function hasOpenClaim(db: Reader, contract: Contract): Promise<boolean> {
  return (await openClaimOf(db, contract)).length > 0
}

const approvedSince = byContract(
  (column) => (db: Reader, id: number, since: string) =>
    db
      .selectFrom('claims')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(column, '=', id)
      .where('outcome', '=', 'approved')
      .where('decided_at', '>=', since),
)

/** The contract's claims decided as approved at or after `since`. */
export async function countApprovedSince(db: Reader, contract: Contract, since: string): Promise<number> {
  const [row] = await approvedSince(db, contract, since)
  return Number(row?.n ?? 0)
}

// Two keys always, the first repeated for a device with one: one statement for both.
const deviceClaimsSince = prepared((db: Reader, first: string, second: string, since: string) =>
  db
    .selectFrom('claims')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) =>
      eb.or([eb('device_key', 'in', [first, second]), eb('second_device_key', 'in', [first, second])]),
    )
    .where('created_at', '>=', since),
)

/** Claims of any partner naming one of these devices (one or two keys), opened at or after `since`. */
export async function countDeviceClaimsSince(db: Reader, keys: string[], since: string): Promise<number> {
  const [first, second] = keys
  if (first === undefined) return 0
  const [row] = await deviceClaimsSince(db, first, second ?? first, since)
  return Number(row?.n ?? 0)
}

const customerClaimsSince = prepared((db: Reader, document: string, since: string) =>
  db
    .selectFrom('claims')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('customer_document', '=', document)
    .where('created_at', '>=', since),
)

/** Claims of any partner by this customer document, opened at or after `since`. */
export async function countCustomerClaimsSince(db: Reader, document: string, since: string): Promise<number> {
  const [row] = await customerClaimsSince(db, document, since)
  return Number(row?.n ?? 0)
}
