import type { Db, Trx } from '../../db/database.js'
import type { InstallmentRow } from './subscription.repository.js'

/** An installment with what its payment rules need to know about its subscription. */
export async function findPartnerInstallment(
  db: Db,
  partnerId: number,
  subscriptionId: number,
  installmentId: number,
) {
  return db
    .selectFrom('installments as i')
    .innerJoin('subscriptions as s', 's.id', 'i.subscription_id')
    .selectAll('i')
    .select(['s.partner_id', 's.status as subscription_status', 's.created_at as subscription_created_at'])
    .where('i.id', '=', installmentId)
    .where('i.subscription_id', '=', subscriptionId)
    .where('s.partner_id', '=', partnerId)
    .executeTakeFirst()
}

export async function findInstallment(db: Db, id: number): Promise<InstallmentRow | undefined> {
  return db.selectFrom('installments').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function findInstallmentByNumber(
  db: Db,
  subscriptionId: number,
  number: number,
): Promise<InstallmentRow | undefined> {
  return db
    .selectFrom('installments')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('number', '=', number)
    .executeTakeFirst()
}

/**
 * Claims an unpaid installment for one charge until `until`, in a transaction of its own (committed
 * before the gateway is called): of concurrent callers exactly one gets true. A claim older than
 * `now` is abandoned (its process died mid-charge) and may be taken over.
 */
export async function claimInstallment(trx: Trx, id: number, now: string, until: string): Promise<boolean> {
  const result = await trx
    .updateTable('installments')
    .set({ locked_until: until })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'refused'])
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Ends our claim, and only ours: a claim that expired and was taken over stays with its new holder. */
export async function releaseInstallment(trx: Trx, id: number, until: string): Promise<void> {
  await trx
    .updateTable('installments')
    .set({ locked_until: null })
    .where('id', '=', id)
    .where('locked_until', '=', until)
    .execute()
}

export async function refuseInstallment(trx: Trx, id: number): Promise<void> {
  await trx
    .updateTable('installments')
    .set({ status: 'refused' })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'refused'])
    .execute()
}

export interface StoredCard {
  token: string
  brand: string
  last4: string
}

/**
 * What the recurrence charges later; the number and security code never reach the database. The
 * later installments still unpaid become due for the recurrence on their due dates.
 */
export async function storeCard(trx: Trx, subscriptionId: number, card: StoredCard): Promise<void> {
  await trx
    .updateTable('subscriptions')
    .set({ card_token: card.token, card_brand: card.brand, card_last4: card.last4 })
    .where('id', '=', subscriptionId)
    .execute()
  await trx
    .updateTable('installments')
    .set((eb) => ({ next_attempt_on: eb.ref('due_date') }))
    .where('subscription_id', '=', subscriptionId)
    .where('number', '>', 1)
    .where('status', '=', 'pending')
    .where('next_attempt_on', 'is', null)
    .execute()
}

/**
 * Cancels the unpaid installments nobody is charging right now; returns how many unpaid ones
 * remain (those held by a charge in progress).
 */
export async function cancelUnpaidInstallments(trx: Trx, subscriptionId: number, now: string) {
  await trx
    .updateTable('installments')
    .set({ status: 'canceled', next_attempt_on: null })
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', ['pending', 'refused'])
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .execute()
  const { held } = await trx
    .selectFrom('installments')
    .select((eb) => eb.fn.countAll<number>().as('held'))
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', ['pending', 'refused'])
    .executeTakeFirstOrThrow()
  return Number(held)
}

/** Moves a subscription that is not canceled yet to `canceled`; false when it already was. */
export async function cancelSubscriptionRow(
  trx: Trx,
  subscriptionId: number,
  reason: string | null,
  now: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('subscriptions')
    .set({ status: 'canceled', canceled_at: now, cancel_reason: reason })
    .where('id', '=', subscriptionId)
    .where('status', '!=', 'canceled')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
