import type { Reader } from '../../db/database.js'
import { inPartnerScope, type PartnerScope } from '../../db/partner-scope.js'
import { type SubscriptionStatus, UNPAID_STATUSES } from '../../db/tables/subscription.js'
import { unrecordedCharge } from './subscription-lifecycle.repository.js'

// A subscription's cancellation and the 30-day expiry's queries.

/** Unpaid installments a cancellation must leave alone: a charge holds them, or one is unrecorded. */
export interface UncancelableInstallments {
  /** Held by a card call in flight (its lease). */
  held: number
  /** With a first charge the worker has yet to record (see unrecordedCharge). */
  unrecorded: number
}

/** A subscription's stored status; undefined when there is none. */
export async function findSubscriptionStatus(
  db: Reader,
  id: number,
): Promise<SubscriptionStatus | undefined> {
  const row = await db.selectFrom('subscriptions').select('status').where('id', '=', id).executeTakeFirst()
  return row?.status
}

/**
 * The unpaid installments of a subscription a cancellation left (all but `keepId`, the refused one
 * that caused it): those a charge holds, and those with a first charge still unrecorded.
 */
export async function countUncancelable(
  db: Reader,
  subscriptionId: number,
  keepId?: number,
): Promise<UncancelableInstallments> {
  let left = db
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

/** Subscriptions still `pending` whose installment 1 is unpaid and that were contracted before `cutoff`. */
export async function findExpiredPending(
  db: Reader,
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
