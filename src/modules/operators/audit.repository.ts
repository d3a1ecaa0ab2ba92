import type { Reader, Trx } from '../../db/database.js'
import type { AuditLogTable } from '../../db/tables/operator.js'

export type AuditRow = Omit<AuditLogTable, 'id'> & { id: number }
export type NewAuditRow = Omit<AuditLogTable, 'id'>

export interface AuditFilter {
  action?: string
  /** An operator's id, or an actor label (`cli:ana`, an e-mail). */
  operator?: string
}

/** Appends one row; the table has no other write (README, Operator console: audit). */
export async function insertAuditRow(trx: Trx, row: NewAuditRow): Promise<void> {
  await trx.insertInto('audit_log').values(row).execute()
}

function filtered(db: Reader, { action, operator }: AuditFilter) {
  let query = db.selectFrom('audit_log')
  if (action) query = query.where('action', '=', action)
  if (operator) {
    query = /^\d{1,10}$/.test(operator)
      ? query.where('actor', '=', Number(operator))
      : query.where('actor_label', '=', operator.toLowerCase())
  }
  return query
}

/** Newest first. */
export async function auditPage(db: Reader, filter: AuditFilter, offset: number, limit: number) {
  const [rows, count] = await Promise.all([
    filtered(db, filter).selectAll().orderBy('id', 'desc').offset(offset).limit(limit).execute(),
    filtered(db, filter)
      .select((eb) => eb.fn.countAll<number | string>().as('total'))
      .executeTakeFirstOrThrow(),
  ])
  return { rows: rows as AuditRow[], total: Number(count.total) }
}

/** Every matching row, newest first, in batches (the CSV export streams them). */
export async function* auditRows(db: Reader, filter: AuditFilter, batch = 1000): AsyncGenerator<AuditRow> {
  let before: number | null = null
  for (;;) {
    let query = filtered(db, filter).selectAll().orderBy('id', 'desc').limit(batch)
    if (before !== null) query = query.where('id', '<', before)
    const rows = (await query.execute()) as AuditRow[]
    yield* rows
    if (rows.length < batch) return
    before = rows[rows.length - 1]?.id ?? null
  }
}
