import type { Db } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'

// The partners' sandbox clocks (docs/decisions.md, Sandbox test clock): an offset from real time, and the claim an advance
// holds so that two never run at once for one partner, whichever process serves them.

/** How far the partner's clock is ahead of real time, in seconds. */
export async function findClockOffset(db: Db, partnerId: number): Promise<number> {
  const row = await db
    .selectFrom('partners')
    .select('clock_offset_seconds')
    .where('id', '=', partnerId)
    .executeTakeFirst()
  return row?.clock_offset_seconds ?? 0
}

/**
 * Holds the partner's clock until `until` (real time) unless another advance holds it: of
 * concurrent callers, in one process or several, exactly one gets the offset; the others undefined.
 */
export async function claimClock(
  db: Db,
  partnerId: number,
  now: string,
  until: string,
): Promise<number | undefined> {
  return retryingTransaction(db, async (trx) => {
    const claimed = await trx
      .updateTable('partners')
      .set({ clock_advancing_until: until })
      .where('id', '=', partnerId)
      .where((eb) => eb.or([eb('clock_advancing_until', 'is', null), eb('clock_advancing_until', '<', now)]))
      .executeTakeFirst()
    if (Number(claimed.numUpdatedRows) !== 1) return undefined
    const row = await trx
      .selectFrom('partners')
      .select('clock_offset_seconds')
      .where('id', '=', partnerId)
      .executeTakeFirstOrThrow()
    return row.clock_offset_seconds
  })
}

/** Moves the held clock to `offsetSeconds` once a day is fully processed, and extends the hold. */
export async function moveClaimedClock(
  db: Db,
  partnerId: number,
  claim: { held: string; until: string },
  offsetSeconds: number,
): Promise<boolean> {
  const result = await retryingTransaction(db, (trx) =>
    trx
      .updateTable('partners')
      .set({ clock_offset_seconds: offsetSeconds, clock_advancing_until: claim.until })
      .where('id', '=', partnerId)
      .where('clock_advancing_until', '=', claim.held)
      .executeTakeFirst(),
  )
  return Number(result.numUpdatedRows) === 1
}

/** Ends this hold and only this one (one that ran out and was taken over stays its holder's). */
export async function releaseClock(db: Db, partnerId: number, held: string): Promise<void> {
  await retryingTransaction(db, (trx) =>
    trx
      .updateTable('partners')
      .set({ clock_advancing_until: null })
      .where('id', '=', partnerId)
      .where('clock_advancing_until', '=', held)
      .execute(),
  )
}

/** Partners whose clock is ahead of real time and not being advanced: the worker runs each at its time. */
export async function findShiftedPartners(db: Db, now: string) {
  return db
    .selectFrom('partners')
    .select(['id as partnerId', 'clock_offset_seconds as offsetSeconds'])
    .where('clock_offset_seconds', '<>', 0)
    .where((eb) => eb.or([eb('clock_advancing_until', 'is', null), eb('clock_advancing_until', '<', now)]))
    .orderBy('id')
    .execute()
}
