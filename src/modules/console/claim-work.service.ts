import type { Trx } from '../../db/database.js'
import type { OperatorRole } from '../../db/tables/operator.js'
import { AppError, NotFoundError, ValidationError } from '../../shared/errors.js'
import { recordAudit } from '../operators/audit.service.js'
import { findAssignee, findOperator, insertNote, moveAssignee } from './claim-work.repository.js'
import { assignmentRefusal, canHoldClaims, noteErrors } from './claim-work.rules.js'
import { deskClaim } from './claims-desk.service.js'
import { DecisionConflictError } from './console.errors.js'

// The claims desk's work besides decisions (README, Operator console: Sinistros): assigning a claim
// and writing internal notes, each audited in the request's transaction.

export interface Worker {
  operator: { id: number; email: string; role: OperatorRole }
  ip: string | null
}

const assigneeView = (operator: { id: number; email: string } | undefined) =>
  operator === undefined ? null : { id: operator.id, email: operator.email }

/**
 * Assigns the claim to `assigneeId` (null: nobody), as claim-work.rules.ts allows: 403 otherwise;
 * 422 under `assignee_id` for an operator who cannot hold claims; 409 when another operator moved
 * it since it was read.
 */
export async function assignClaim(
  trx: Trx,
  who: Worker,
  claimId: number,
  assigneeId: number | null,
  now: string,
) {
  const claim = await findAssignee(trx, claimId)
  if (!claim) throw new NotFoundError('Claim')
  const refusal = assignmentRefusal(who.operator, claim.assignee_id, assigneeId)
  if (refusal !== null) throw new AppError('forbidden', refusal)
  const target = assigneeId === null ? undefined : await findOperator(trx, assigneeId)
  if (assigneeId !== null && (target === undefined || !canHoldClaims(target))) {
    throw ValidationError.field('assignee_id', 'The assignee must be an active adjuster or admin.')
  }
  if (!(await moveAssignee(trx, claimId, claim.assignee_id, assigneeId))) {
    throw new DecisionConflictError('The claim was assigned meanwhile by another operator.')
  }
  const before = claim.assignee_id === null ? undefined : await findOperator(trx, claim.assignee_id)
  await recordAudit(trx, {
    operator: { id: who.operator.id, email: who.operator.email },
    action: 'claim.assign',
    recordType: 'claim',
    recordId: String(claimId),
    before: { assignee: assigneeView(before) },
    after: { assignee: assigneeView(target) },
    ip: who.ip,
    at: now,
  })
  return deskClaim(trx, claimId)
}

/** Appends an internal note (1–2,000 characters) by the signed-in operator; 404 for no such claim. */
export async function addNote(trx: Trx, who: Worker, claimId: number, body: string, now: string) {
  const errors = noteErrors(body)
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  if (!(await findAssignee(trx, claimId))) throw new NotFoundError('Claim')
  const text = body.trim()
  const id = await insertNote(trx, {
    claim_id: claimId,
    author_id: who.operator.id,
    body: text,
    created_at: now,
  })
  await recordAudit(trx, {
    operator: { id: who.operator.id, email: who.operator.email },
    action: 'claim.note',
    recordType: 'claim',
    recordId: String(claimId),
    before: null,
    after: { note_id: id },
    ip: who.ip,
    at: now,
  })
  return { id, body: text, author: { id: who.operator.id, email: who.operator.email }, created_at: now }
}
