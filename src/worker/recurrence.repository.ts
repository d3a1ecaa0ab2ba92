import type { Db, Trx } from '../db/database.js'
import { isPostgres } from '../db/database.js'
import { retryingTransaction } from '../db/transaction.js'

/** A claimed installment with what charging it needs. */
export interface DueInstallment {
  id: number
  subscription_id: number
  partner_id: number
  number: number
  amount: number
  due_date: string
  failed_attempts: number
  card_token: string
}

export interface Claim {
  /** 'YYYY-MM-DD' in the service zone. */
  today: string
  /** UTC ISO instants. */
  now: string
  lockedUntil: string
  limit: number
}

/** Due: pending, not the first (paid by card at contracting), attempt day reached, not held. */
function dueInstallments(db: Db, claim: Claim) {
  return (
    db
      .selectFrom('installments as i')
      .innerJoin('subscriptions as s', 's.id', 'i.subscription_id')
      .innerJoin('partners as p', 'p.id', 's.partner_id')
      .select([
        'i.id',
        'i.subscription_id',
        's.partner_id',
        'i.number',
        'i.amount',
        'i.due_date',
        'i.failed_attempts',
        's.card_token',
      ])
      .where('i.status', '=', 'pending')
      .where('i.number', '>', 1)
      .where('i.next_attempt_on', '<=', claim.today)
      // Not held, or held past its time (a worker that died mid-charge).
      .where((eb) => eb.or([eb('i.locked_until', 'is', null), eb('i.locked_until', '<', claim.now)]))
      // An active subscription with a card token, of a partner still on the own gateway (after a
      // switch to external, the partner collects and notifies).
      .where('s.status', '=', 'pago')
      .where('s.card_token', 'is not', null)
      .where('p.gateway', '=', 'own')
      .orderBy('i.next_attempt_on')
      .orderBy('i.id')
      .limit(claim.limit)
  )
}

/**
 * Takes up to `limit` installments the recurrence should charge today and holds them until
 * `lockedUntil`, committed before any charge, so no other worker takes them meanwhile.
 */
export async function claimDueInstallments(db: Db, claim: Claim): Promise<DueInstallment[]> {
  const rows = isPostgres(db)
    ? // Concurrent workers skip the rows another one is claiming instead of waiting for them; the row
      // lock re-checks the conditions on the newest committed row, so a held row is never taken twice.
      // (A single `update … where id in (select … for update skip locked limit n)` may rescan the
      // subquery and take far more than n rows: two statements in a short transaction do not.)
      await retryingTransaction(db, async (trx) => {
        const due = await dueInstallments(trx, claim).forUpdate('i').skipLocked().execute()
        if (due.length > 0) await hold(trx, due, claim.lockedUntil)
        return due
      })
    : await retryingTransaction(db, (trx) => claimOnSqlite(trx, claim))
  return rows.flatMap((r) => (r.card_token === null ? [] : [{ ...r, card_token: r.card_token }]))
}

/**
 * SQLite has a single writer, so one statement is atomic even against another process on the
 * same file: it holds exactly the due rows still free; then those are read.
 */
async function claimOnSqlite(trx: Trx, claim: Claim) {
  const held = await trx
    .updateTable('installments')
    .set({ locked_until: claim.lockedUntil })
    .where('id', 'in', dueInstallments(trx, claim).clearSelect().select('i.id'))
    .returning('id')
    .execute()
  if (held.length === 0) return []
  // The same columns, for the rows just held (which the due conditions no longer match).
  return dueInstallments(trx, claim)
    .clearWhere()
    .where(
      'i.id',
      'in',
      held.map((h) => h.id),
    )
    .execute()
}

async function hold(trx: Trx, rows: { id: number }[], lockedUntil: string) {
  await trx
    .updateTable('installments')
    .set({ locked_until: lockedUntil })
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .execute()
}

/**
 * Counts a decline and sets the next attempt day, releasing the claim. Guarded by the attempts
 * seen at claim time, so a decline is never counted twice. False when the row changed meanwhile.
 */
export async function rescheduleInstallment(
  trx: Trx,
  installment: Pick<DueInstallment, 'id' | 'failed_attempts'>,
  nextAttemptOn: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('installments')
    .set({
      failed_attempts: installment.failed_attempts + 1,
      next_attempt_on: nextAttemptOn,
      locked_until: null,
    })
    .where('id', '=', installment.id)
    .where('status', '=', 'pending')
    .where('failed_attempts', '=', installment.failed_attempts)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** The last decline: the installment becomes `refused`, with the same guard as a reschedule. */
export async function refuseInstallment(
  trx: Trx,
  installment: Pick<DueInstallment, 'id' | 'failed_attempts'>,
): Promise<boolean> {
  const result = await trx
    .updateTable('installments')
    .set({
      status: 'refused',
      failed_attempts: installment.failed_attempts + 1,
      next_attempt_on: null,
      locked_until: null,
    })
    .where('id', '=', installment.id)
    .where('status', '=', 'pending')
    .where('failed_attempts', '=', installment.failed_attempts)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/**
 * Whether a claimed installment may still be charged: one batch can hold several installments of
 * one subscription (after a worker outage), and the refusal of one cancels the subscription and
 * the others before their turn comes.
 */
export async function stillChargeable(db: Db, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('installments as i')
    .innerJoin('subscriptions as s', 's.id', 'i.subscription_id')
    .select('i.id')
    .where('i.id', '=', id)
    .where('i.status', '=', 'pending')
    .where('s.status', '=', 'pago')
    .executeTakeFirst()
  return row !== undefined
}

/** Lets another run take the installment again (after a failure that recorded nothing). */
export async function releaseInstallment(trx: Trx, id: number): Promise<void> {
  await trx.updateTable('installments').set({ locked_until: null }).where('id', '=', id).execute()
}
