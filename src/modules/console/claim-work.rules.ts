import type { OperatorRole } from '../../db/tables/operator.js'
import { hasRole } from '../operators/operator.rules.js'

// The claims desk's working rules (README, Operator console: Sinistros): who may assign a claim to
// whom, what a note holds, and how the activity feed reads the audit log.

export interface Assigner {
  id: number
  role: OperatorRole
}

/**
 * Why `by` may not move the claim from `current` to `target` (operator ids, null: nobody), or null:
 * any adjuster takes an unassigned claim ("Atribuir a mim") or releases their own; only an admin
 * gives a claim to someone else or takes it from them.
 */
export function assignmentRefusal(
  by: Assigner,
  current: number | null,
  target: number | null,
): string | null {
  if (hasRole(by.role, 'admin')) return null
  if (!hasRole(by.role, 'adjuster')) return 'Only an adjuster or an admin assigns claims.'
  if (target === current) return null
  if (target === by.id && current === null) return null
  if (target === null && current === by.id) return null
  return 'Only an admin reassigns a claim to someone else or takes it from its assignee.'
}

/** Who may hold a claim: an adjuster or an admin whose access is not disabled. */
export const canHoldClaims = (operator: { role: OperatorRole; disabled_at: string | null }) =>
  operator.disabled_at === null && hasRole(operator.role, 'adjuster')

export const NOTE_MAX = 2000

/** The note's errors: 1 to 2,000 characters once trimmed. */
export function noteErrors(body: string): Record<string, string[]> {
  const length = [...body.trim()].length
  if (length === 0) return { body: ['The note must not be empty.'] }
  if (length > NOTE_MAX) return { body: [`The note must not exceed ${NOTE_MAX} characters.`] }
  return {}
}

/** The audit actions on a claim the activity feed shows, and the kind of entry each becomes. */
export const FEED_ACTIONS = {
  'claim.request_documents': 'documents_requested',
  'claim.approve': 'approved',
  'claim.deny': 'denied',
  'claim.settle': 'settled',
  'claim.assign': 'assigned',
} as const
export type FeedAction = keyof typeof FEED_ACTIONS

export const ACTIVITY_KINDS = [
  'opened',
  'document_received',
  'documents_requested',
  'note',
  'approved',
  'denied',
  'settled',
  'assigned',
] as const
export type ActivityKind = (typeof ACTIVITY_KINDS)[number]
