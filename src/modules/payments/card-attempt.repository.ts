import type { Insertable, Selectable } from 'kysely'
import type { Db, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import type { CardAttemptsTable } from './payment.table.js'

export type CardAttemptRow = Selectable<CardAttemptsTable>
export type CardAttemptOf = { installmentId: number } | { annualPlanId: number }

/** The first charge of this installment or plan whose outcome is not recorded yet, if any. */
export async function findOpenAttempt(db: Db, of: CardAttemptOf): Promise<CardAttemptRow | undefined> {
  const query = db.selectFrom('card_attempts').selectAll()
  return (
    'installmentId' in of
      ? query.where('installment_id', '=', of.installmentId)
      : query.where('annual_plan_id', '=', of.annualPlanId)
  ).executeTakeFirst()
}

/** Kept, committed, before the gateway call it describes. */
export async function storeAttempt(db: Db, row: Insertable<CardAttemptsTable>): Promise<CardAttemptRow> {
  return retryingTransaction(db, (trx) =>
    trx.insertInto('card_attempts').values(row).returningAll().executeTakeFirstOrThrow(),
  )
}

/**
 * Ends an attempt in the transaction that records its outcome: of the callers that replayed it
 * (a retry, the worker), exactly one gets true and records; the others write nothing.
 */
export async function closeAttempt(trx: Trx, id: number): Promise<boolean> {
  const result = await trx.deleteFrom('card_attempts').where('id', '=', id).executeTakeFirst()
  return Number(result.numDeletedRows) === 1
}

/** Attempts made before `before` and still open: their call is over, their outcome unrecorded. */
export async function findStaleAttempts(db: Db, before: string, limit: number): Promise<CardAttemptRow[]> {
  return db
    .selectFrom('card_attempts')
    .selectAll()
    .where('created_at', '<', before)
    .orderBy('id')
    .limit(limit)
    .execute()
}
