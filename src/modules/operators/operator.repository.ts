import type { Selectable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import type { OperatorRole, OperatorSessionsTable, OperatorsTable } from '../../db/tables/operator.js'

export type OperatorRow = Selectable<OperatorsTable>
export type SessionRow = Omit<OperatorSessionsTable, 'totp_failures'> & { totp_failures: number }

export async function insertOperator(
  trx: Trx,
  values: {
    email: string
    role: OperatorRole
    password_hash: string
    password_one_time: boolean
    now: string
  },
): Promise<OperatorRow> {
  return (await trx
    .insertInto('operators')
    .values({
      email: values.email,
      role: values.role,
      password_hash: values.password_hash,
      password_one_time: values.password_one_time,
      created_at: values.now,
      password_changed_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()) as OperatorRow
}

export async function operatorByEmail(db: Reader, email: string): Promise<OperatorRow | undefined> {
  return (await db.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirst()) as
    | OperatorRow
    | undefined
}

export async function operatorById(db: Reader, id: number): Promise<OperatorRow | undefined> {
  return (await db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst()) as
    | OperatorRow
    | undefined
}

export async function allOperators(db: Reader): Promise<OperatorRow[]> {
  return (await db.selectFrom('operators').selectAll().orderBy('id').execute()) as OperatorRow[]
}

export async function updateOperator(
  trx: Trx,
  id: number,
  changes: Partial<Omit<Selectable<OperatorsTable>, 'id' | 'email' | 'created_at'>>,
): Promise<OperatorRow> {
  return (await trx
    .updateTable('operators')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()) as OperatorRow
}

/**
 * Accepts a TOTP time step once: true when `step` is newer than the last one accepted (two
 * requests with one code cannot both pass, whatever the dialect's isolation).
 */
export async function takeTotpStep(trx: Trx, id: number, step: number): Promise<boolean> {
  const result = await trx
    .updateTable('operators')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export async function insertSession(trx: Trx, row: Omit<SessionRow, 'totp_failures'>): Promise<void> {
  await trx.insertInto('operator_sessions').values(row).execute()
}

/** A session with its operator, if both exist. */
export async function sessionWithOperator(db: Reader, id: string) {
  return db
    .selectFrom('operator_sessions as s')
    .innerJoin('operators as o', 'o.id', 's.operator_id')
    .select([
      's.id',
      's.operator_id',
      's.stage',
      's.totp_failures',
      's.created_at',
      's.last_seen_at',
      's.expires_at',
      'o.email',
      'o.role',
      'o.disabled_at',
      'o.password_one_time',
      'o.totp_enrolled_at',
    ])
    .where('s.id', '=', id)
    .executeTakeFirst()
}

export async function touchSession(trx: Trx, id: string, now: string): Promise<void> {
  await trx.updateTable('operator_sessions').set({ last_seen_at: now }).where('id', '=', id).execute()
}

export async function completeSession(trx: Trx, id: string, now: string): Promise<void> {
  await trx
    .updateTable('operator_sessions')
    .set({ stage: 'done', last_seen_at: now })
    .where('id', '=', id)
    .execute()
}

/** Counts one wrong TOTP code; the new count. */
export async function countTotpFailure(trx: Trx, id: string): Promise<number> {
  const row = await trx
    .updateTable('operator_sessions')
    .set((eb) => ({ totp_failures: eb('totp_failures', '+', 1) }))
    .where('id', '=', id)
    .returning('totp_failures')
    .executeTakeFirst()
  return row?.totp_failures ?? 0
}

export async function deleteSession(trx: Trx, id: string): Promise<void> {
  await trx.deleteFrom('operator_sessions').where('id', '=', id).execute()
}

/** Ends an operator's sessions, but `keep` (the one that changed its password). */
export async function deleteSessionsOf(trx: Trx, operatorId: number, keep?: string): Promise<void> {
  let query = trx.deleteFrom('operator_sessions').where('operator_id', '=', operatorId)
  if (keep !== undefined) query = query.where('id', '!=', keep)
  await query.execute()
}

/** Sessions past their end, for housekeeping at sign-in. */
export async function deleteSessionsEndedBefore(trx: Trx, idleCutoff: string, now: string): Promise<void> {
  await trx
    .deleteFrom('operator_sessions')
    .where((eb) => eb.or([eb('last_seen_at', '<', idleCutoff), eb('expires_at', '<=', now)]))
    .execute()
}
