import type { Db, Trx } from '../../db/database.js'
import { inPartnerScope, type PartnerScope } from '../../db/partner-scope.js'

// The end of a subscription's last month (README, Subscriptions): which ones reached it, and its record.

/** What recording an expiry reads of a subscription. */
export interface EndingSubscription {
  id: number
  status: 'pending' | 'pago' | 'canceled'
  ends_on: string
  expired_at: string | null
}

/** Active subscriptions whose end day has come by `today` and whose expiry is not recorded yet, by id after `after`. */
export async function findEndedSubscriptions(
  db: Db,
  { today, after, limit, scope }: { today: string; after: number; limit: number; scope?: PartnerScope },
): Promise<EndingSubscription[]> {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'status', 'ends_on', 'expired_at'])
    .where('expired_at', 'is', null)
    .where('ends_on', '<=', today)
    .where('status', '=', 'pago')
    .where('id', '>', after)
    .where(inPartnerScope(scope, 'partner_id'))
    .orderBy('id')
    .limit(limit)
    .execute()
}

/**
 * Records the expiry of an active subscription at `endedAt` (its `updated_at` too); guarded by the
 * facts read, so false when another reader or the worker recorded it first, or it was canceled.
 */
export async function markSubscriptionExpired(trx: Trx, id: number, endedAt: string): Promise<boolean> {
  const result = await trx
    .updateTable('subscriptions')
    .set({ expired_at: endedAt, updated_at: endedAt })
    .where('id', '=', id)
    .where('status', '=', 'pago')
    .where('expired_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
