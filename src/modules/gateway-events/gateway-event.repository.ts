import type { Trx } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'

/**
 * Records a Stripe event as applied, in the transaction of its effect: true for the first delivery,
 * false for any later one (the effect then must not be written again).
 */
export async function markEventApplied(trx: Trx, id: string, type: string, at: string): Promise<boolean> {
  return (await insertEvent(trx, id, type, at)).length > 0
}

// Once per Stripe event: compiled once (prepared()), as the rest of its payment's statements.
const insertEvent = prepared((trx: Trx, id: string, type: string, at: string) =>
  trx
    .insertInto('stripe_events')
    .values({ id, type, applied_at: at })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id'),
)
