import { retryingTransaction } from '../db/transaction.js'
import type { JobDeps } from './job.js'

export interface CoverageClockResult {
  /** Paid annual plans whose coverage started. */
  protected: number
  /** Annual plans whose coverage ended. */
  expired: number
}

/**
 * Persists what the coverage clock says (`paid` → `protected` at `starts_at`, → `expired` at
 * `ends_at`), so stored statuses catch up with the ones the API already derives on every read.
 * Two set-based updates: idempotent, and safe with several workers at once.
 */
export async function advanceCoverageClock({ db, clock }: JobDeps): Promise<CoverageClockResult> {
  const now = clock.now().toISOString()
  return retryingTransaction(db, async (trx) => {
    const expired = await trx
      .updateTable('annual_plans')
      .set({ status: 'expired' })
      .where('status', 'in', ['paid', 'protected'])
      .where('ends_at', '<=', now)
      .executeTakeFirst()
    const started = await trx
      .updateTable('annual_plans')
      .set({ status: 'protected' })
      .where('status', '=', 'paid')
      .where('starts_at', '<=', now)
      .executeTakeFirst()
    return { protected: Number(started.numUpdatedRows), expired: Number(expired.numUpdatedRows) }
  })
}
