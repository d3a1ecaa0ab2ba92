import type { Db } from '../../db/database.js'
import { type CsvCell, csvFile, csvTime } from '../../shared/csv.js'
import { AUDIT_ACTION_LABELS, AUDIT_RECORD_LABELS, labelOf } from '../../shared/labels.js'
import {
  type AuditFilter,
  type AuditRecordIds,
  type AuditRow,
  auditBatches,
  auditRecordNames,
} from './audit.repository.js'

// The audit log as a spreadsheet (OpenAPI operation exportAudit): each action and record in words,
// each record by the name people know it by rather than the row it is stored in.

export const AUDIT_CSV_HEADER = [
  'Quando',
  'Quem',
  'Ação',
  'Registro',
  'Identificação',
  'Antes',
  'Depois',
  'Endereço IP',
] as const

/** Credentials are named by their client id already; a session names nothing. */
const NAMED_BY_ID = new Set(['credentials'])

/** The ids of a batch's records, by type, to look their names up at once. */
export function recordIdsOf(rows: readonly AuditRow[]): AuditRecordIds {
  const ids: Record<string, string[]> = {}
  for (const row of rows) {
    if (row.record_id !== '') ids[row.record_type] = [...(ids[row.record_type] ?? []), row.record_id]
  }
  return ids
}

/** One entry's line, in the header's order; `names` from auditRecordNames. */
export function auditCsvRow(row: AuditRow, names: ReadonlyMap<string, string>, zone: string): CsvCell[] {
  const identification = NAMED_BY_ID.has(row.record_type)
    ? row.record_id
    : (names.get(`${row.record_type}:${row.record_id}`) ?? null)
  return [
    csvTime(new Date(row.at).toISOString(), zone),
    row.actor_label,
    labelOf(AUDIT_ACTION_LABELS, row.action),
    labelOf(AUDIT_RECORD_LABELS, row.record_type),
    identification,
    row.before,
    row.after,
    row.ip,
  ]
}

/** The log, newest first, under the same filters as the screen, as CSV for Excel pt-BR. */
export function auditCsv(db: Db, filter: AuditFilter, zone: string): AsyncGenerator<string> {
  async function* lines() {
    for await (const rows of auditBatches(db, filter)) {
      const names = await auditRecordNames(db, recordIdsOf(rows))
      for (const row of rows) yield auditCsvRow(row, names, zone)
    }
  }
  return csvFile(AUDIT_CSV_HEADER, lines())
}
