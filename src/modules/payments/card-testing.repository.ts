import type { Reader, Trx } from '../../db/database.js'
import { lockingRows } from '../../db/dialect-sql.js'
import type { ContractRef } from '../contracts/contract-reference.js'

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
