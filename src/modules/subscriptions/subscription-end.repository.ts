import type { Reader } from '../../db/database.js'
import { inPartnerScope, type PartnerScope } from '../../db/partner-scope.js'
import type { SubscriptionStatus } from '../../db/tables/subscription.js'

// The end of a subscription's last month (README, Subscriptions): which ones reached it.

/** What recording an expiry reads of a subscription. */
export interface EndingSubscription {
  id: number
  status: SubscriptionStatus
  ends_on: string
}

/** Active (`pago`) subscriptions whose end day has come by `today`, by id after `after`: their expiry is due. */
export async function findEndedSubscriptions(
  db: Reader,
  { today, after, limit, scope }: { today: string; after: number; limit: number; scope?: PartnerScope },
): Promise<EndingSubscription[]> {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'status', 'ends_on'])
    .where('status', '=', 'pago')
    .where('ends_on', '<=', today)
    .where('id', '>', after)
    .where(inPartnerScope(scope, 'partner_id'))
    .orderBy('id')
    .limit(limit)
    .execute()
}
