import type { Insertable, Selectable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import { lockingRows } from '../../db/database.js'
import type { CardAttemptsTable } from '../../db/tables/payment.js'
import type { ContractRef } from '../contracts/contract-reference.js'

/** The gateway's customer of an Amparo customer, once kept. */
export async function findGatewayCustomer(db: Reader, customerId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('gateway_customers')
    .select('gateway_customer_id')
    .where('customer_id', '=', customerId)
    .executeTakeFirst()
  return row?.gateway_customer_id
}

/** Keeps the gateway's customer of an Amparo customer unless one is kept already (the first wins). */
export async function keepGatewayCustomer(
  trx: Trx,
  customerId: number,
  gatewayCustomerId: string,
  at: string,
): Promise<void> {
  await trx
    .insertInto('gateway_customers')
    .values({ customer_id: customerId, gateway_customer_id: gatewayCustomerId, created_at: at })
    .onConflict((oc) => oc.column('customer_id').doNothing())
    .execute()
}

export type CardTestingScope = ContractRef | { partnerId: number }

/** Locks the contract's row until commit: its card attempts are counted and started one at a time. */
export async function lockContract(trx: Trx, contract: ContractRef): Promise<void> {
  const query =
    'subscriptionId' in contract
      ? trx.selectFrom('subscriptions').select('id').where('id', '=', contract.subscriptionId)
      : trx.selectFrom('annual_plans').select('id').where('id', '=', contract.annualPlanId)
  await lockingRows(trx, query).execute()
}

/** A card attempt under way on `contract`, from now until `endTry`; tries older than `since` go. */
export async function startTry(
  trx: Trx,
  contract: ContractRef,
  partnerId: number,
  { at, since }: { at: string; since: string },
): Promise<number> {
  await trx.deleteFrom('card_tries').where('created_at', '<=', since).execute()
  const row = await trx
    .insertInto('card_tries')
    .values({
      partner_id: partnerId,
      subscription_id: 'subscriptionId' in contract ? contract.subscriptionId : null,
      annual_plan_id: 'annualPlanId' in contract ? contract.annualPlanId : null,
      created_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function endTry(trx: Trx, id: number): Promise<void> {
  await trx.deleteFrom('card_tries').where('id', '=', id).execute()
}

/**
 * The time of the `n`-th most recent declined attempt since `since` in `of`, attempts under way
 * counted as declined, if there were that many: the limit is reached, and it frees up when that
 * one is a day old.
 */
export async function nthLatestDecline(
  db: Reader,
  of: CardTestingScope,
  since: string,
  n: number,
): Promise<string | undefined> {
  let payments = db
    .selectFrom('payments')
    .select('created_at')
    .where('route', '=', 'card')
    .where('outcome', '=', 'declined')
    .where('created_at', '>', since)
  let checks = db
    .selectFrom('card_checks')
    .select('created_at')
    .where('outcome', '=', 'declined')
    .where('created_at', '>', since)
  let tries = db.selectFrom('card_tries').select('created_at').where('created_at', '>', since)
  if ('partnerId' in of) {
    payments = payments.where('partner_id', '=', of.partnerId)
    checks = checks.where('partner_id', '=', of.partnerId)
    tries = tries.where('partner_id', '=', of.partnerId)
  } else if ('subscriptionId' in of) {
    payments = payments.where('subscription_id', '=', of.subscriptionId)
    checks = checks.where('subscription_id', '=', of.subscriptionId)
    tries = tries.where('subscription_id', '=', of.subscriptionId)
  } else {
    payments = payments.where('annual_plan_id', '=', of.annualPlanId)
    tries = tries.where('annual_plan_id', '=', of.annualPlanId)
  }
  const fromPayments = await payments.orderBy('created_at', 'desc').limit(n).execute()
  const fromChecks = 'annualPlanId' in of ? [] : await checks.orderBy('created_at', 'desc').limit(n).execute()
  const fromTries = await tries.orderBy('created_at', 'desc').limit(n).execute()
  const rows = [...fromPayments, ...fromChecks, ...fromTries]
    .map((r) => new Date(r.created_at).toISOString())
    .sort((a, b) => b.localeCompare(a))
  return rows[n - 1]
}

export type CardAttemptRow = Selectable<CardAttemptsTable>
export type CardAttemptOf = { installmentId: number } | { annualPlanId: number }

const attemptsOf = (db: Reader, of: CardAttemptOf) => {
  const query = db.selectFrom('card_attempts').selectAll()
  return 'installmentId' in of
    ? query.where('installment_id', '=', of.installmentId)
    : query.where('annual_plan_id', '=', of.annualPlanId)
}

/** The first charge of this installment or plan whose outcome is not recorded yet, if any. */
export async function findOpenAttempt(db: Reader, of: CardAttemptOf): Promise<CardAttemptRow | undefined> {
  return attemptsOf(db, of).where('recorded_at', 'is', null).executeTakeFirst()
}

/** The latest first charge of this installment or plan that a request with `key` made, recorded or not. */
export async function findKeyedAttempt(
  db: Reader,
  of: CardAttemptOf,
  key: string,
): Promise<CardAttemptRow | undefined> {
  return attemptsOf(db, of).where('request_key', '=', key).orderBy('id', 'desc').executeTakeFirst()
}

/** Kept, committed, before the gateway call it describes. */
export async function storeAttempt(trx: Trx, row: Insertable<CardAttemptsTable>): Promise<CardAttemptRow> {
  return trx.insertInto('card_attempts').values(row).returningAll().executeTakeFirstOrThrow()
}

/**
 * Marks an attempt recorded in the transaction that records its outcome: of the callers that
 * replayed it (a retry, the worker), exactly one gets true and records; the others write nothing.
 */
export async function closeAttempt(trx: Trx, id: number, at: string): Promise<boolean> {
  const result = await trx
    .updateTable('card_attempts')
    .set({ recorded_at: at })
    .where('id', '=', id)
    .where('recorded_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Forgets an attempt: one the worker gives up, or one recorded before `before` (its key's 24 h are over). */
export async function deleteAttempt(trx: Trx, id: number): Promise<void> {
  await trx.deleteFrom('card_attempts').where('id', '=', id).execute()
}

export async function purgeRecordedAttempts(trx: Trx, before: string): Promise<number> {
  const result = await trx.deleteFrom('card_attempts').where('recorded_at', '<=', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Attempts made before `before` and still open: their call is over, their outcome unrecorded. */
export async function findStaleAttempts(
  db: Reader,
  before: string,
  limit: number,
): Promise<CardAttemptRow[]> {
  return db
    .selectFrom('card_attempts')
    .selectAll()
    .where('recorded_at', 'is', null)
    .where('created_at', '<', before)
    .orderBy('id')
    .limit(limit)
    .execute()
}

const NAME = 'gateway_key_namespace'

/** Keeps `made` as the deployment's gateway key namespace unless one is kept already (the first insert wins). */
export async function keepKeyNamespace(trx: Trx, made: string): Promise<void> {
  await trx
    .insertInto('settings')
    .values({ name: NAME, value: made })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
}

/** The deployment's gateway key namespace, once kept. */
export async function keyNamespace(db: Reader): Promise<string> {
  const row = await db
    .selectFrom('settings')
    .select('value')
    .where('name', '=', NAME)
    .executeTakeFirstOrThrow()
  return row.value
}

/** The unrecorded first charge a gateway object names (`metadata[amparo_reference]`) of this partner, if any. */
export async function findOpenAttemptByReference(
  db: Reader,
  partnerId: number,
  reference: string,
): Promise<CardAttemptRow | undefined> {
  return db
    .selectFrom('card_attempts')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('reference', '=', reference)
    .where('recorded_at', 'is', null)
    .executeTakeFirst()
}
