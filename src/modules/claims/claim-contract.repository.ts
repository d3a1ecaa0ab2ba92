import type { Compilable } from 'kysely'
import type { Reader } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'
import type { ContractRef } from '../contracts/contract-reference.js'

// What a claim's opening reads besides its contract (contract.service.ts): the subscription's
// installments and card changes, and the claims already made. Each statement has one shape, built
// and compiled once (prepared()): an opening runs eight of them.

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

type ContractColumn = 'subscription_id' | 'annual_plan_id'

/** One prepared statement for each kind of contract: `build` with the contract's column. */
function byContract<A extends unknown[], R>(
  build: (column: ContractColumn) => (db: Reader, id: number, ...args: A) => Compilable<R>,
) {
  const bySubscription = prepared(build('subscription_id'))
  const byAnnualPlan = prepared(build('annual_plan_id'))
  return (db: Reader, contract: ContractRef, ...args: A) =>
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
export async function hasOpenClaim(db: Reader, contract: ContractRef): Promise<boolean> {
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
export async function countApprovedSince(db: Reader, contract: ContractRef, since: string): Promise<number> {
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
