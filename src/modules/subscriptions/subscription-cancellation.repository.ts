import type { Db, Trx } from '../../db/database.js'
import { notHeld } from '../../db/lease.js'
import { inPartnerScope, type PartnerScope } from '../../db/partner-scope.js'
import { type SubscriptionStatus, type SubscriptionsTable, UNPAID_STATUSES } from './subscription.table.js'

// A subscription's cancellation and the 30-day expiry's queries.

/**
 * Cancels the unpaid installments of a subscription that no charge holds, but `keepId` (the refused
 * installment that caused the cancellation); returns how many unpaid ones remain held.
 */
export async function cancelUnpaidInstallments(
  trx: Trx,
  subscriptionId: number,
  now: string,
  keepId?: number,
): Promise<number> {
  let cancel = trx
    .updateTable('installments')
    .set({ status: 'canceled', next_attempt_on: null, locked_until: null })
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', UNPAID_STATUSES)
    .where(notHeld(now))
  if (keepId !== undefined) cancel = cancel.where('id', '<>', keepId)
  await cancel.execute()
  let held = trx
    .selectFrom('installments')
    .select((eb) => eb.fn.countAll<number>().as('held'))
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', UNPAID_STATUSES)
  if (keepId !== undefined) held = held.where('id', '<>', keepId)
  return Number((await held.executeTakeFirstOrThrow()).held)
}

/**
 * Installment 1 of an expired pending subscription, unless a charge holds it or a first charge of it
 * is still unrecorded (the gateway may have approved it: the worker's reconciliation records it
 * first); false when none was.
 */
export async function cancelFirstInstallment(
  trx: Trx,
  subscriptionId: number,
  now: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('installments')
    .set({ status: 'canceled', next_attempt_on: null, locked_until: null })
    .where('subscription_id', '=', subscriptionId)
    .where('number', '=', 1)
    .where('status', 'in', UNPAID_STATUSES)
    .where(notHeld(now))
    .where(({ exists, not, selectFrom }) =>
      not(
        exists(
          selectFrom('card_attempts')
            .select('card_attempts.id')
            .whereRef('card_attempts.installment_id', '=', 'installments.id'),
        ),
      ),
    )
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Moves a subscription still in status `from` to `canceled`; false when it no longer was. */
export async function markSubscriptionCanceled(
  trx: Trx,
  subscriptionId: number,
  from: SubscriptionStatus,
  { reason, comment }: { reason: NonNullable<SubscriptionsTable['cancel_reason']>; comment: string | null },
  now: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('subscriptions')
    .set({
      status: 'canceled',
      canceled_at: now,
      cancel_reason: reason,
      cancel_comment: comment,
      updated_at: now,
    })
    .where('id', '=', subscriptionId)
    .where('status', '=', from)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Subscriptions still `pending` whose installment 1 is unpaid and that were contracted before `cutoff`. */
export async function findExpiredPending(
  db: Db,
  { cutoff, after, limit, scope }: { cutoff: string; after: number; limit: number; scope?: PartnerScope },
): Promise<number[]> {
  const rows = await db
    .selectFrom('subscriptions as s')
    .innerJoin('installments as i', (join) =>
      join.onRef('i.subscription_id', '=', 's.id').on('i.number', '=', 1),
    )
    .select('s.id')
    .where('s.id', '>', after)
    .where('s.status', '=', 'pending')
    .where('i.status', 'in', UNPAID_STATUSES)
    .where('s.created_at', '<', cutoff)
    .where(inPartnerScope(scope, 's.partner_id'))
    .orderBy('s.id')
    .limit(limit)
    .execute()
  return rows.map((r) => r.id)
}
