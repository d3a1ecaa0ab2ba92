import type { Reader, Trx } from '../../db/database.js'
import { insertReturningId } from '../../db/prepared.js'

// What the claims desk's work reads and writes (README, Operator console: Sinistros): a claim's
// assignee, its internal notes, and its audit entries the activity feed shows.

/** The claim's assignee, or undefined when the claim does not exist. */
export async function findAssignee(db: Reader, claimId: number) {
  return db.selectFrom('claims').select(['id', 'assignee_id']).where('id', '=', claimId).executeTakeFirst()
}

export async function findOperator(db: Reader, id: number) {
  return db
    .selectFrom('operators')
    .select(['id', 'email', 'role', 'disabled_at'])
    .where('id', '=', id)
    .executeTakeFirst()
}

/**
 * Sets the assignee when it is still `expected`: of two operators taking the claim at once, one
 * moves it and the other finds it taken. False when it was not.
 */
export async function moveAssignee(
  trx: Trx,
  claimId: number,
  expected: number | null,
  assigneeId: number | null,
): Promise<boolean> {
  const result = await trx
    .updateTable('claims')
    .set({ assignee_id: assigneeId })
    .where('id', '=', claimId)
    .where((eb) => (expected === null ? eb('assignee_id', 'is', null) : eb('assignee_id', '=', expected)))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export async function insertNote(
  trx: Trx,
  note: { claim_id: number; author_id: number; body: string; created_at: string },
): Promise<number> {
  return insertReturningId(trx, 'claim_notes', note)
}

/** The claim's notes with their authors, oldest first. */
export async function notesOf(db: Reader, claimId: number) {
  return db
    .selectFrom('claim_notes as n')
    .innerJoin('operators as o', 'o.id', 'n.author_id')
    .select(['n.id', 'n.body', 'n.created_at', 'n.author_id', 'o.email as author_email'])
    .where('n.claim_id', '=', claimId)
    .orderBy('n.id')
    .execute()
}

/** The claim's audit entries of these actions, oldest first. */
export async function auditOfClaim(db: Reader, claimId: number, actions: readonly string[]) {
  return db
    .selectFrom('audit_log')
    .select(['id', 'at', 'actor', 'actor_label', 'action', 'after'])
    .where('record_type', '=', 'claim')
    .where('record_id', '=', String(claimId))
    .where('action', 'in', [...actions])
    .orderBy('id')
    .execute()
}
