import type { Insertable, Selectable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import type { CardAttemptsTable } from '../../db/tables/payment.js'

export type CardAttemptRow = Selectable<CardAttemptsTable>
export type CardAttemptOf = { installmentId: number } | { annualPlanId: number }

const attemptsOf = (db: Reader, of: CardAttemptOf) => {
  const query = db.selectFrom('card_attempts').selectAll()
  return 'installmentId' in of
    ? query.where('installment_id', '=', of.installmentId)
    : query.where('annual_plan_id', '=', of.annualPlanId)
}

/** The first charge of this installment or plan whose outcome is not recorded yet, if any. */
export async function findOpenAttempt(db: Reader, of: CardAttemptOf): Promise<CardAttemptRow | undefined> {
  return attemptsOf(db, of).where('recorded_at', 'is', null).executeTakeFirst()
}

/** The latest first charge of this installment or plan that a request with `key` made, recorded or not. */
export async function findKeyedAttempt(
  db: Reader,
  of: CardAttemptOf,
  key: string,
): Promise<CardAttemptRow | undefined> {
  return attemptsOf(db, of).where('request_key', '=', key).orderBy('id', 'desc').executeTakeFirst()
}

/** Kept, committed, before the gateway call it describes. */
export async function storeAttempt(trx: Trx, row: Insertable<CardAttemptsTable>): Promise<CardAttemptRow> {
  return trx.insertInto('card_attempts').values(row).returningAll().executeTakeFirstOrThrow()
}

/**
 * Marks an attempt recorded in the transaction that records its outcome: of the callers that
 * replayed it (a retry, the worker), exactly one gets true and records; the others write nothing.
 */
export async function closeAttempt(trx: Trx, id: number, at: string): Promise<boolean> {
  const result = await trx
    .updateTable('card_attempts')
    .set({ recorded_at: at })
    .where('id', '=', id)
    .where('recorded_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Forgets an attempt: one the worker gives up, or one recorded before `before` (its key's 24 h are over). */
export async function deleteAttempt(trx: Trx, id: number): Promise<void> {
  await trx.deleteFrom('card_attempts').where('id', '=', id).execute()
}

export async function purgeRecordedAttempts(trx: Trx, before: string): Promise<number> {
  const result = await trx.deleteFrom('card_attempts').where('recorded_at', '<=', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Attempts made before `before` and still open: their call is over, their outcome unrecorded. */
export async function findStaleAttempts(
  db: Reader,
  before: string,
  limit: number,
): Promise<CardAttemptRow[]> {
  return db
    .selectFrom('card_attempts')
    .selectAll()
    .where('recorded_at', 'is', null)
    .where('created_at', '<', before)
    .orderBy('id')
    .limit(limit)
    .execute()
}
