import type { Db, Trx } from '../../db/database.js'
import { type AuditFilter, type AuditRow, auditPage, insertAuditRow } from './audit.repository.js'

/**
 * Who acted: a signed-in operator, the CLI under an OS user (`cli:<user>`), an insured on the
 * portal (`insured:<customer id>`), or someone not identified who gave this e-mail (a failed sign-in).
 */
export type AuditActor =
  | { id: number; email: string }
  | { cli: string }
  | { claimed: string }
  | { insured: number }

function actorColumns(actor: AuditActor): { actor: number | null; actor_label: string } {
  if ('cli' in actor) return { actor: null, actor_label: `cli:${actor.cli}` }
  if ('insured' in actor) return { actor: null, actor_label: `insured:${actor.insured}` }
  if ('claimed' in actor) return { actor: null, actor_label: actor.claimed }
  return { actor: actor.id, actor_label: actor.email }
}

export interface AuditEntry {
  operator: AuditActor
  /** `<record>.<verb>`: `claim.approve`, `credentials.issue`, `operator.create`, … */
  action: string
  recordType: string
  recordId: string
  /** The record before and after, as JSON; null (or undefined) when it did not exist. Never a secret. */
  before: unknown
  after: unknown
  ip: string | null
  /** When; now by default. */
  at?: string
}

/**
 * Appends one entry to the audit log, in the caller's transaction: the action and its record
 * commit together or not at all (README, Operator console: audit).
 */
export async function recordAudit(trx: Trx, entry: AuditEntry): Promise<void> {
  await insertAuditRow(trx, {
    at: entry.at ?? new Date().toISOString(),
    ...actorColumns(entry.operator),
    action: entry.action,
    record_type: entry.recordType,
    record_id: entry.recordId,
    before: asJson(entry.before),
    after: asJson(entry.after),
    ip: entry.ip,
  })
}

const asJson = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value)

export interface AuditEntryView {
  id: number
  at: string
  actor: number | null
  actor_label: string
  action: string
  record_type: string
  record_id: string
  before: unknown
  after: unknown
  ip: string | null
}

export function auditEntryView(row: AuditRow): AuditEntryView {
  return {
    id: row.id,
    at: row.at,
    actor: row.actor,
    actor_label: row.actor_label,
    action: row.action,
    record_type: row.record_type,
    record_id: row.record_id,
    before: row.before === null ? null : JSON.parse(row.before),
    after: row.after === null ? null : JSON.parse(row.after),
    ip: row.ip,
  }
}

/** A Laravel-style page of the log, newest first. */
export async function listAudit(db: Db, filter: AuditFilter, page: number, perPage: number) {
  const { rows, total } = await auditPage(db, filter, (page - 1) * perPage, perPage)
  return {
    data: rows.map(auditEntryView),
    current_page: page,
    per_page: perPage,
    total,
    last_page: Math.max(1, Math.ceil(total / perPage)),
  }
}
