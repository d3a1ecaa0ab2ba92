import type { Trx } from '../../db/database.js'

/**
 * Records a Stripe event as applied, in the transaction of its effect: true for the first delivery,
 * false for any later one (the effect then must not be written again).
 */
export async function markEventApplied(trx: Trx, id: string, type: string, at: string): Promise<boolean> {
  const inserted = await trx
    .insertInto('stripe_events')
    .values({ id, type, applied_at: at })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst()
  return inserted !== undefined
}
