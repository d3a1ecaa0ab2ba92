import type { ExpressionBuilder } from 'kysely'
import type { Database, Db, Trx } from '../../db/database.js'
import { notHeld } from '../../db/lease.js'
import { inPartnerScope, type PartnerScope } from '../../db/partner-scope.js'
import {
  type SubscriptionStatus,
  type SubscriptionsTable,
  UNPAID_STATUSES,
} from '../../db/tables/subscription.js'

// A subscription's cancellation and the 30-day expiry's queries.

/** An installment whose first card charge went to the gateway and was never recorded (it may have been approved). */
const unrecordedCharge = ({ exists, selectFrom }: ExpressionBuilder<Database, 'installments'>) =>
  exists(
    selectFrom('card_attempts')
      .select('card_attempts.id')
      .whereRef('card_attempts.installment_id', '=', 'installments.id')
      .where('card_attempts.recorded_at', 'is', null),
  )

/** Unpaid installments a cancellation must leave alone: a charge holds them, or one is unrecorded. */
export interface UncancelableInstallments {
  /** Held by a card call in flight (its lease). */
  held: number
  /** With a first charge the worker has yet to record (see unrecordedCharge). */
  unrecorded: number
}

/**
 * Cancels the unpaid installments of a subscription that no charge holds and none left unrecorded,
 * but `keepId` (the refused installment that caused the cancellation); returns what remains.
 */
export async function cancelUnpaidInstallments(
  trx: Trx,
  subscriptionId: number,
  now: string,
  keepId?: number,
): Promise<UncancelableInstallments> {
  let cancel = trx
    .updateTable('installments')
    .set({ status: 'canceled', next_attempt_on: null, locked_until: null })
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', UNPAID_STATUSES)
    .where(notHeld(now))
    .where((eb) => eb.not(unrecordedCharge(eb)))
  if (keepId !== undefined) cancel = cancel.where('id', '<>', keepId)
  await cancel.execute()
  let left = trx
    .selectFrom('installments')
    .select((eb) => [
      eb.fn.countAll<number>().as('left'),
      eb.fn.sum<number>(eb.case().when(unrecordedCharge(eb)).then(1).else(0).end()).as('unrecorded'),
    ])
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', UNPAID_STATUSES)
  if (keepId !== undefined) left = left.where('id', '<>', keepId)
  const counts = await left.executeTakeFirstOrThrow()
  const unrecorded = Number(counts.unrecorded ?? 0)
  return { held: Number(counts.left) - unrecorded, unrecorded }
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
    .where((eb) => eb.not(unrecordedCharge(eb)))
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
    .where('s.expired_at', 'is', null) // always, when pending: the condition of the index it reads
    .where('i.status', 'in', UNPAID_STATUSES)
    .where('s.created_at', '<', cutoff)
    .where(inPartnerScope(scope, 's.partner_id'))
    .orderBy('s.id')
    .limit(limit)
    .execute()
  return rows.map((r) => r.id)
}
