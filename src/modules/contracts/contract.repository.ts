import type { Insertable } from 'kysely'
import { expressionBuilder, type SelectQueryBuilder, sql } from 'kysely'
import { type Database, isPostgres, type Reader, type Trx } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'
import type { PaymentsTable } from '../../db/tables/payment.js'
import type { ContractRef } from './contract-reference.js'

// What every view of a contract joins: its plan, customer, device model and brand (a join of
// several modules' tables is data-layer code: src/db/README.md). Written here once; the product
// views, the certificates, the claims and the claims desk build on it.

type ContractTable = 'subscriptions' | 'annual_plans'
type Parties = {
  p: Database['plans']
  c: Database['customers']
  m: Database['models']
  b: Database['brands']
}

/**
 * The contracts of one table as `alias`, joined to their plan (p), customer (c), model (m) and
 * brand (b). Both tables name these the same way (`plan_id`, `customer_id`, `model_id`).
 */
export function contractsWithParties<T extends ContractTable, A extends string>(
  db: Reader,
  table: T,
  alias: A,
): SelectQueryBuilder<Database & Record<A, Database[T]> & Parties, A | keyof Parties, Record<never, never>> {
  // Typed for the subscriptions' columns the join names, which the annual plans name alike.
  const k = alias as string as 'k'
  return db
    .selectFrom(`${table as 'subscriptions'} as ${k}`)
    .innerJoin('plans as p', 'p.id', `${k}.plan_id`)
    .innerJoin('customers as c', 'c.id', `${k}.customer_id`)
    .innerJoin('models as m', 'm.id', `${k}.model_id`)
    .innerJoin('brands as b', 'b.id', 'm.brand_id') as never
}

/** The columns both tables have, read as `k`, with the plan's terms and the customer's document. */
const FACTS = [
  'k.id',
  'k.partner_id',
  'k.policy_number',
  'k.plan_id',
  'p.name as plan_name',
  'p.coverage_types',
  'p.claim_notice_days',
  'p.max_claims_per_year',
  'k.customer_id',
  'c.document as customer_document',
  'k.model_id',
  'k.lmi',
  'k.franchise',
  'k.created_at',
  'k.updated_at',
] as const

// One statement per product and per locking, each built and compiled once (prepared()): a claim's
// opening reads its contract locked, the claims desk reads it as it is.
function subscriptionStatement(lock: boolean) {
  return prepared((db: Reader, partnerId: number, id: number) => {
    const query = contractsWithParties(db, 'subscriptions', 'k')
      .select([
        ...FACTS,
        'k.status',
        'k.partner_seq',
        'k.serial_number',
        'k.second_serial_number',
        'k.ends_on',
        'k.canceled_at',
        'k.monthly_premium',
        'k.installments_count',
        // How the contract was paid is how its first installment was (null while unpaid).
        (eb) =>
          eb
            .selectFrom('installments as fi')
            .select('fi.paid_with')
            .whereRef('fi.subscription_id', '=', 'k.id')
            .where('fi.number', '=', 1)
            .as('paid_with'),
      ])
      .where('k.partner_id', '=', partnerId)
      .where('k.id', '=', id)
    // Locked until commit on PostgreSQL (SQLite has one writer at a time already).
    return lock && isPostgres(db) ? query.forUpdate('k') : query
  })
}

function annualPlanStatement(lock: boolean) {
  return prepared((db: Reader, partnerId: number, id: number) => {
    const query = contractsWithParties(db, 'annual_plans', 'k')
      .leftJoin('annual_plan_cancellations as x', 'x.annual_plan_id', 'k.id')
      .select([
        ...FACTS,
        'k.status',
        'k.imei',
        'k.imei_2',
        'k.starts_at',
        'k.ends_at',
        'k.premium',
        'k.paid_with',
        'x.confirmed_at as canceled_at',
      ])
      .where('k.partner_id', '=', partnerId)
      .where('k.id', '=', id)
    // Locked until commit on PostgreSQL (SQLite has one writer at a time already).
    return lock && isPostgres(db) ? query.forUpdate('k') : query
  })
}

const statements = {
  read: { subscription: subscriptionStatement(false), annualPlan: annualPlanStatement(false) },
  locked: { subscription: subscriptionStatement(true), annualPlan: annualPlanStatement(true) },
}

/** The partner's contract as its table has it, with its plan, customer and device; undefined when not theirs. */
export async function findContractRow(db: Reader, partnerId: number, ref: ContractRef) {
  return rowOf(statements.read, db, partnerId, ref)
}

/**
 * findContractRow, the row locked until commit on PostgreSQL, so two claims opened on one contract
 * see each other's (SQLite has one writer at a time already).
 */
export async function lockContractRow(trx: Trx, partnerId: number, ref: ContractRef) {
  return rowOf(statements.locked, trx, partnerId, ref)
}

async function rowOf(found: typeof statements.read, db: Reader, partnerId: number, ref: ContractRef) {
  if ('subscriptionId' in ref) {
    const [row] = await found.subscription(db, partnerId, ref.subscriptionId)
    return row && { kind: 'subscription' as const, row }
  }
  const [row] = await found.annualPlan(db, partnerId, ref.annualPlanId)
  return row && { kind: 'annual_plan' as const, row }
}

export type ContractRow = NonNullable<Awaited<ReturnType<typeof findContractRow>>>

/**
 * A customer's columns selected next to the resource that embeds it (joined as `c`, prefixed
 * `customer_`; customers/customer.mapper.ts `customerFromView` turns them back into a customer row). Part of
 * the contract views (contract.repository.ts).
 */
export const CUSTOMER_VIEW_COLUMNS = [
  'c.id as customer_id',
  'c.partner_id as customer_partner_id',
  'c.name as customer_name',
  'c.document as customer_document',
  'c.document_kind as customer_document_kind',
  'c.email as customer_email',
  'c.phone as customer_phone',
  'c.street as customer_street',
  'c.number as customer_number',
  'c.complement as customer_complement',
  'c.zipcode as customer_zipcode',
  'c.neighborhood as customer_neighborhood',
  'c.city as customer_city',
  'c.state as customer_state',
  'c.created_at as customer_created_at',
] as const

/** The ids of the partner's customers with this normalised document: the lists' customer filter. */
export function customerIdsWithDocument(partnerId: number, document: string) {
  return expressionBuilder<Database, never>()
    .selectFrom('customers')
    .select('customers.id')
    .where('customers.partner_id', '=', partnerId)
    .where('customers.document', '=', document)
}

// The writes every contract shares: its payments ledger and its policy number's sequence.

/** Appends to the payments ledger (payments/payment.table.ts) of a contract: one row per charge attempt or payment notification, never updated. */
export async function recordPayment(trx: Trx, row: Insertable<PaymentsTable>): Promise<void> {
  await trx.insertInto('payments').values(row).execute()
}

/**
 * Takes the next number of the annual plans' id sequence without inserting a plan: a policy
 * number (`AMP-<year>-<number>`) is derived from it, so subscriptions and annual plans draw their
 * policy numbers from one sequence and no two contracts share one (docs/decisions.md, "Policy
 * numbers of subscriptions"). PostgreSQL: the identity column's sequence. SQLite: the table is
 * AUTOINCREMENT, so its counter in sqlite_sequence is what the next insert exceeds; one writer at
 * a time makes the read-and-bump safe.
 */
export async function nextPolicySerial(trx: Trx): Promise<number> {
  if (isPostgres(trx)) {
    const { rows } = await sql<{ serial: string | number }>`
      select nextval(pg_get_serial_sequence('annual_plans', 'id')) as serial`.execute(trx)
    return Number(rows[0]?.serial)
  }
  const { rows } = await sql<{ seq: number }>`
    update sqlite_sequence set seq = seq + 1 where name = 'annual_plans' returning seq`.execute(trx)
  if (rows[0]) return Number(rows[0].seq)
  await sql`insert into sqlite_sequence (name, seq) values ('annual_plans', 1)`.execute(trx)
  return 1
}
