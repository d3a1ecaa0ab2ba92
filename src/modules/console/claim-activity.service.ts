import type { Reader } from '../../db/database.js'
import type { DocumentKind } from '../../db/tables/claim.js'
import { auditOfClaim, notesOf } from './claim-work.repository.js'
import { type ActivityKind, FEED_ACTIONS, type FeedAction } from './claim-work.rules.js'
import type { DeskClaimRow } from './claims-desk.repository.js'

// A claim's activity feed (README, Operator console: Sinistros): what happened to it, who did it and
// when, read from where each fact already lives — the claim (opening, a decision the partner's
// sandbox made), its documents, its notes and the audit log of the operators' actions — not a log of
// its own.

const iso = (instant: string) => new Date(instant).toISOString()

export interface ActivityActor {
  type: 'operator' | 'cli' | 'partner'
  operator_id: number | null
  label: string
}

export interface ActivityEntry {
  id: string
  kind: ActivityKind
  at: string
  by: ActivityActor
  document?: { id: number; kind: DocumentKind; filename: string }
  kinds?: DocumentKind[]
  message?: string
  note?: string
  assignee?: { id: number; email: string } | null
}

interface DocumentFact {
  id: number
  kind: DocumentKind
  filename: string
  uploaded_at: string
}

const auditActor = (actor: number | null, label: string): ActivityActor =>
  actor !== null
    ? { type: 'operator', operator_id: actor, label }
    : { type: label.startsWith('cli:') ? 'cli' : 'operator', operator_id: null, label }

const parsed = (json: string | null): Record<string, unknown> =>
  json === null ? {} : (JSON.parse(json) as Record<string, unknown>)

/** The claim's activity, oldest first. */
export async function activityOf(db: Reader, claim: DeskClaimRow, documents: DocumentFact[]) {
  const [notes, audit] = await Promise.all([
    notesOf(db, claim.id),
    auditOfClaim(db, claim.id, Object.keys(FEED_ACTIONS)),
  ])
  const partner: ActivityActor = { type: 'partner', operator_id: null, label: claim.partner_name }
  const entries: ActivityEntry[] = [
    { id: `claim:${claim.id}`, kind: 'opened', at: iso(claim.created_at), by: partner },
  ]
  for (const d of documents) {
    entries.push({
      id: `document:${d.id}`,
      kind: 'document_received',
      at: iso(d.uploaded_at),
      by: partner,
      document: { id: d.id, kind: d.kind, filename: d.filename },
    })
  }
  for (const n of notes) {
    entries.push({
      id: `note:${n.id}`,
      kind: 'note',
      at: iso(n.created_at),
      by: { type: 'operator', operator_id: n.author_id, label: n.author_email },
      note: n.body,
    })
  }
  for (const a of audit) {
    const kind = FEED_ACTIONS[a.action as FeedAction]
    const after = parsed(a.after)
    const entry: ActivityEntry = {
      id: `audit:${a.id}`,
      kind,
      at: iso(a.at),
      by: auditActor(a.actor, a.actor_label),
    }
    if (kind === 'documents_requested') {
      const request = after.documents_request as { kinds: DocumentKind[]; message: string } | null
      entry.kinds = request?.kinds ?? []
      entry.message = request?.message ?? ''
    }
    if (kind === 'assigned') entry.assignee = (after.assignee as ActivityEntry['assignee']) ?? null
    entries.push(entry)
  }
  // A decision or settlement the partner's sandbox made has no audit entry: the claim's row has it.
  const has = (kind: ActivityKind) => entries.some((e) => e.kind === kind)
  if (claim.outcome !== null && claim.decided_at !== null && !has(claim.outcome)) {
    entries.push({ id: `decision:${claim.id}`, kind: claim.outcome, at: iso(claim.decided_at), by: partner })
  }
  if (claim.settled_at !== null && !has('settled')) {
    entries.push({ id: `settlement:${claim.id}`, kind: 'settled', at: iso(claim.settled_at), by: partner })
  }
  return entries.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0))
}

/** Who made the claim's latest entry of `kind` (its decision, its settlement), and when. */
export function latestBy(entries: readonly ActivityEntry[], kind: ActivityKind) {
  const entry = entries.findLast((e) => e.kind === kind)
  return entry === undefined ? null : entry.by.label
}
