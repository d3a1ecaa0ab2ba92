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

/** Every matching row, newest first, a batch at a time (the CSV export streams them). */
export async function* auditBatches(
  db: Reader,
  filter: AuditFilter,
  batch = 1000,
): AsyncGenerator<AuditRow[]> {
  let before: number | null = null
  for (;;) {
    let query = filtered(db, filter).selectAll().orderBy('id', 'desc').limit(batch)
    if (before !== null) query = query.where('id', '<', before)
    const rows = (await query.execute()) as AuditRow[]
    if (rows.length > 0) yield rows
    if (rows.length < batch) return
    before = rows[rows.length - 1]?.id ?? null
  }
}

/** Ids of audited records, by record type, as the log stores them (text). */
export type AuditRecordIds = Partial<Record<'claim' | 'refund' | 'partner' | 'plan' | 'operator', string[]>>

const numeric = (ids: string[] | undefined) =>
  [...new Set(ids ?? [])].filter((id) => /^\d{1,15}$/.test(id)).map(Number)

/**
 * What people call each audited record: a claim its number (`SIN-…`), a refund its annual plan's
 * policy number (`AMP-…`), a partner or plan its name, an operator their e-mail. Keyed
 * `<type>:<id>`; a record since gone is absent.
 */
export async function auditRecordNames(db: Reader, ids: AuditRecordIds): Promise<Map<string, string>> {
  const lookups = [
    [
      'claim',
      numeric(ids.claim),
      (wanted: number[]) =>
        db.selectFrom('claims').select(['id', 'number as name']).where('id', 'in', wanted).execute(),
    ],
    [
      'refund',
      numeric(ids.refund),
      (wanted: number[]) =>
        db
          .selectFrom('annual_plan_refunds as r')
          .innerJoin('annual_plans as ap', 'ap.id', 'r.annual_plan_id')
          .select(['r.id', 'ap.policy_number as name'])
          .where('r.id', 'in', wanted)
          .execute(),
    ],
    [
      'partner',
      numeric(ids.partner),
      (wanted: number[]) =>
        db.selectFrom('partners').select(['id', 'name']).where('id', 'in', wanted).execute(),
    ],
    [
      'plan',
      numeric(ids.plan),
      (wanted: number[]) => db.selectFrom('plans').select(['id', 'name']).where('id', 'in', wanted).execute(),
    ],
    [
      'operator',
      numeric(ids.operator),
      (wanted: number[]) =>
        db.selectFrom('operators').select(['id', 'email as name']).where('id', 'in', wanted).execute(),
    ],
  ] as const
  const names = new Map<string, string>()
  await Promise.all(
    lookups.map(async ([type, wanted, lookup]) => {
      if (wanted.length === 0) return
      for (const row of await lookup(wanted)) if (row.name !== null) names.set(`${type}:${row.id}`, row.name)
    }),
  )
  return names
}
