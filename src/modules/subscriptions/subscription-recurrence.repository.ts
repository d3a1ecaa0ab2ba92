import { claimLease, notHeld, type Reader, type Trx } from '../../db/database.js'
import { inPartnerScope, type PartnerScope } from '../../db/partner-scope.js'

// The recurrence's queries: the due installments, their claim, and a declined attempt.

/**
 * Claims a due installment for the recurrence: still pending, still at the attempt the caller saw
 * (a decline is never counted twice), of a subscription still active.
 */
export function claimDueInstallment(
  trx: Trx,
  due: Pick<DueInstallment, 'id' | 'failed_attempts' | 'subscription_id'>,
  now: string,
  until: string,
): Promise<boolean> {
  return claimLease(trx, 'installments', due.id, { now, until }, (claim) =>
    claim
      .where('status', '=', 'pending')
      .where('failed_attempts', '=', due.failed_attempts)
      .where('subscription_id', 'in', (eb) =>
        eb
          .selectFrom('subscriptions')
          .select('id')
          .where('id', '=', due.subscription_id)
          .where('status', '=', 'pago'),
      ),
  )
}

/** An installment the recurrence charges, with what charging it needs. */
export interface DueInstallment {
  id: number
  subscription_id: number
  partner_id: number
  number: number
  amount: number
  due_date: string
  failed_attempts: number
  card_token: string
  /** The gateway's customer the card is saved to; null for cards saved before it was kept. */
  gateway_customer_id: string | null
}

/**
 * Installments the recurrence should charge today (`today` in the service zone): pending, not the
 * first (paid at contracting), attempt day reached, not held, of an active subscription with a card
 * of a partner still on the own gateway (after a switch to external, the partner collects and
 * notifies). Read without a lock: each is claimed before it is charged.
 */
export async function findDueInstallments(
  db: Reader,
  { today, now, limit, scope }: { today: string; now: string; limit: number; scope?: PartnerScope },
): Promise<DueInstallment[]> {
  const rows = await db
    .selectFrom('installments as i')
    .innerJoin('subscriptions as s', 's.id', 'i.subscription_id')
    .innerJoin('partners as p', 'p.id', 's.partner_id')
    .leftJoin('gateway_customers as g', 'g.customer_id', 's.customer_id')
    .select([
      'g.gateway_customer_id',
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
    .where('i.next_attempt_on', '<=', today)
    .where(notHeld(now, 'i.locked_until'))
    .where('s.status', '=', 'pago')
    .where('s.card_token', 'is not', null)
    .where('p.gateway', '=', 'own')
    .where(inPartnerScope(scope, 's.partner_id'))
    .orderBy('i.next_attempt_on')
    .orderBy('i.id')
    .limit(limit)
    .execute()
  return rows.flatMap(({ card_token, ...row }) => (card_token === null ? [] : [{ ...row, card_token }]))
}

/**
 * Counts a decline of a pending installment and sets its next attempt day (with none left,
 * subscription-lifecycle.service.ts `recordRecurrenceDecline` refuses it instead). Guarded by the
 * attempts seen at claim time, so a decline is never counted twice. False when the row changed
 * meanwhile.
 */
export async function countDeclinedAttempt(
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
