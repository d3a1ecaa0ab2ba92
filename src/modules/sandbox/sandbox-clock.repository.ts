import type { Reader, Trx } from '../../db/database.js'
import { prepared } from '../../db/prepared.js'

// The partners' sandbox clocks (docs/decisions.md, Sandbox test clock): an offset from real time, and the claim an advance
// holds so that two never run at once for one partner, whichever process serves them.

/** How far the partner's clock is ahead of real time, in seconds. */
export async function findClockOffset(db: Reader, partnerId: number): Promise<number> {
  const [row] = await clockOffset(db, partnerId)
  return row?.clock_offset_seconds ?? 0
}

// Read before every Stripe event about a partner's payment: compiled once (prepared()).
const clockOffset = prepared((db: Reader, partnerId: number) =>
  db.selectFrom('partners').select('clock_offset_seconds').where('id', '=', partnerId),
)

/** The advance a claim of the clock starts or resumes: the request's Idempotency-Key, if any. */
export interface ClockAdvance {
  key: string | null
  /** The offset to go to, from the clock's and, when `key` started the last advance, where that one was going. */
  to(offsetSeconds: number, resumed: number | null): number
}

/**
 * Holds the partner's clock until `until` (real time) unless another advance holds it: of
 * concurrent callers, in one process or several, exactly one gets the offset and keeps `advance`'s
 * key and target with it; the others get when the hold runs out.
 */
export async function claimClock(
  trx: Trx,
  partnerId: number,
  now: string,
  until: string,
  advance: ClockAdvance,
): Promise<{ offset: number; to: number } | { heldUntil: string | null }> {
  const claimed = await trx
    .updateTable('partners')
    .set({ clock_advancing_until: until })
    .where('id', '=', partnerId)
    .where((eb) => eb.or([eb('clock_advancing_until', 'is', null), eb('clock_advancing_until', '<', now)]))
    .executeTakeFirst()
  const row = await trx
    .selectFrom('partners')
    .select(['clock_offset_seconds', 'clock_advancing_until', 'clock_advance_key', 'clock_advance_to'])
    .where('id', '=', partnerId)
    .executeTakeFirstOrThrow()
  if (Number(claimed.numUpdatedRows) !== 1) return { heldUntil: row.clock_advancing_until }
  const resumed = advance.key !== null && row.clock_advance_key === advance.key ? row.clock_advance_to : null
  const to = advance.to(row.clock_offset_seconds, resumed)
  await trx
    .updateTable('partners')
    .set({ clock_advance_key: advance.key, clock_advance_to: to })
    .where('id', '=', partnerId)
    .execute()
  return { offset: row.clock_offset_seconds, to }
}

/** Moves the held clock to `offsetSeconds` once a day is fully processed, and extends the hold. */
export async function moveClaimedClock(
  trx: Trx,
  partnerId: number,
  claim: { held: string; until: string },
  offsetSeconds: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('partners')
    .set({ clock_offset_seconds: offsetSeconds, clock_advancing_until: claim.until })
    .where('id', '=', partnerId)
    .where('clock_advancing_until', '=', claim.held)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Ends this hold and only this one (one that ran out and was taken over stays its holder's). */
export async function releaseClock(trx: Trx, partnerId: number, held: string): Promise<void> {
  await trx
    .updateTable('partners')
    .set({ clock_advancing_until: null })
    .where('id', '=', partnerId)
    .where('clock_advancing_until', '=', held)
    .execute()
}

/** Partners whose clock is ahead of real time and not being advanced: the worker runs each at its time. */
export async function findShiftedPartners(db: Reader, now: string) {
  return db
    .selectFrom('partners')
    .select(['id as partnerId', 'clock_offset_seconds as offsetSeconds'])
    .where('clock_offset_seconds', '<>', 0)
    .where((eb) => eb.or([eb('clock_advancing_until', 'is', null), eb('clock_advancing_until', '<', now)]))
    .orderBy('id')
    .execute()
}
