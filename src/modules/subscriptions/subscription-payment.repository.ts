import type { Db, Trx } from '../../db/database.js'
import { notHeld, recordPayment } from '../payments/payment.service.js'
import type { PaymentRoute } from '../payments/payment.table.js'
import type { InstallmentRow } from './subscription.repository.js'
import type { CancellationReason } from './subscription.schemas.js'
import type { SubscriptionStatus } from './subscription.table.js'

/** An installment being paid: recorded as paid on approval, as declined otherwise. */
export interface InstallmentPayment {
  partnerId: number
  subscriptionId: number
  installmentId: number
  number: number
  amount: number
}

const UNPAID = ['pending', 'refused'] as const

/** An installment with what its payment rules need to know about its subscription. */
export async function findPartnerInstallment(
  db: Db,
  partnerId: number,
  subscriptionId: number,
  installmentId: number,
) {
  return db
    .selectFrom('installments as i')
    .innerJoin('subscriptions as s', 's.id', 'i.subscription_id')
    .selectAll('i')
    .select(['s.partner_id', 's.status as subscription_status', 's.created_at as subscription_created_at'])
    .where('i.id', '=', installmentId)
    .where('i.subscription_id', '=', subscriptionId)
    .where('s.partner_id', '=', partnerId)
    .executeTakeFirst()
}

export async function findInstallment(db: Db, id: number): Promise<InstallmentRow | undefined> {
  return db.selectFrom('installments').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function findInstallmentByNumber(
  db: Db,
  subscriptionId: number,
  number: number,
): Promise<InstallmentRow | undefined> {
  return db
    .selectFrom('installments')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('number', '=', number)
    .executeTakeFirst()
}

/** Claims an unpaid installment for one charge until `until` (see chargeOnce). */
export async function claimInstallment(trx: Trx, id: number, now: string, until: string): Promise<boolean> {
  const result = await trx
    .updateTable('installments')
    .set({ locked_until: until })
    .where('id', '=', id)
    .where('status', 'in', UNPAID)
    .where(notHeld(now))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/**
 * Claims a due installment for the recurrence: still pending, still at the attempt the caller saw
 * (a decline is never counted twice), of a subscription still active.
 */
export async function claimDueInstallment(
  trx: Trx,
  due: Pick<DueInstallment, 'id' | 'failed_attempts' | 'subscription_id'>,
  now: string,
  until: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('installments')
    .set({ locked_until: until })
    .where('id', '=', due.id)
    .where('status', '=', 'pending')
    .where('failed_attempts', '=', due.failed_attempts)
    .where(notHeld(now))
    .where('subscription_id', 'in', (eb) =>
      eb
        .selectFrom('subscriptions')
        .select('id')
        .where('id', '=', due.subscription_id)
        .where('status', '=', 'pago'),
    )
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Ends our claim, and only ours: a claim that expired and was taken over stays with its new holder. */
export async function releaseInstallment(trx: Trx, id: number, until: string): Promise<void> {
  await trx
    .updateTable('installments')
    .set({ locked_until: null })
    .where('id', '=', id)
    .where('locked_until', '=', until)
    .execute()
}

/**
 * Pays an installment once. The conditional update is the guard: of concurrent callers (threads,
 * processes, workers) exactly one moves it from pending/refused to paid and writes the ledger row;
 * the others get false and write nothing. Paying installment 1 activates the subscription
 * ('activated'). Called through payInstallment, which writes the events.
 */
export async function markInstallmentPaid(
  trx: Trx,
  payment: InstallmentPayment,
  route: PaymentRoute,
  transactionId: string | null,
  now: string,
): Promise<false | 'paid' | 'activated'> {
  const result = await trx
    .updateTable('installments')
    .set({ status: 'paid', paid_at: now, locked_until: null, next_attempt_on: null })
    .where('id', '=', payment.installmentId)
    .where('status', 'in', UNPAID)
    .executeTakeFirst()
  if (Number(result.numUpdatedRows) === 0) return false
  await recordPayment(trx, {
    ...ledgerRow(payment, route, now),
    outcome: route === 'notification' ? 'recorded' : 'approved',
    transaction_id: transactionId,
  })
  if (payment.number === 1) {
    const activated = await trx
      .updateTable('subscriptions')
      .set({ status: 'pago', updated_at: now })
      .where('id', '=', payment.subscriptionId)
      .where('status', '=', 'pending')
      .executeTakeFirst()
    if (Number(activated.numUpdatedRows) === 1) return 'activated'
  }
  return 'paid'
}

/** Records a declined charge in the ledger, and its code on the installment. */
export async function recordDecline(
  trx: Trx,
  payment: InstallmentPayment,
  route: PaymentRoute,
  declineCode: string,
  transactionId: string | null,
  now: string,
): Promise<void> {
  await recordPayment(trx, {
    ...ledgerRow(payment, route, now),
    outcome: 'declined',
    decline_code: declineCode,
    transaction_id: transactionId,
  })
  await trx
    .updateTable('installments')
    .set({ last_decline_code: declineCode })
    .where('id', '=', payment.installmentId)
    .execute()
}

function ledgerRow(payment: InstallmentPayment, route: PaymentRoute, now: string) {
  return {
    partner_id: payment.partnerId,
    subscription_id: payment.subscriptionId,
    installment_id: payment.installmentId,
    annual_plan_id: null,
    amount: payment.amount,
    route,
    decline_code: null,
    created_at: now,
  }
}

/**
 * Installment 1 declined at the counter: `refused`, one more attempt counted, and a later approved
 * try still pays it.
 */
export async function refuseFirstInstallment(trx: Trx, id: number): Promise<void> {
  await trx
    .updateTable('installments')
    .set((eb) => ({ status: 'refused', failed_attempts: eb('failed_attempts', '+', 1) }))
    .where('id', '=', id)
    .where('status', 'in', UNPAID)
    .execute()
}

export interface StoredCard {
  token: string
  brand: string
  last4: string
}

/**
 * What the recurrence charges later; the number and security code never reach the database. The
 * later installments still unpaid become due for the recurrence on their due dates.
 */
export async function storeCard(
  trx: Trx,
  subscriptionId: number,
  card: StoredCard,
  now: string,
): Promise<void> {
  await trx
    .updateTable('subscriptions')
    .set({ card_token: card.token, card_brand: card.brand, card_last4: card.last4, updated_at: now })
    .where('id', '=', subscriptionId)
    .execute()
  await trx
    .updateTable('installments')
    .set((eb) => ({ next_attempt_on: eb.ref('due_date') }))
    .where('subscription_id', '=', subscriptionId)
    .where('number', '>', 1)
    .where('status', '=', 'pending')
    .where('next_attempt_on', 'is', null)
    .execute()
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
  db: Db,
  { today, now, limit }: { today: string; now: string; limit: number },
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
    .orderBy('i.next_attempt_on')
    .orderBy('i.id')
    .limit(limit)
    .execute()
  return rows.flatMap(({ card_token, ...row }) => (card_token === null ? [] : [{ ...row, card_token }]))
}

/**
 * Counts a decline and sets the next attempt day (or, with none left, refuses the installment).
 * Guarded by the attempts seen at claim time, so a decline is never counted twice. False when the
 * row changed meanwhile.
 */
export async function recordFailedAttempt(
  trx: Trx,
  installment: Pick<DueInstallment, 'id' | 'failed_attempts'>,
  nextAttemptOn: string | null,
): Promise<boolean> {
  const result = await trx
    .updateTable('installments')
    .set({
      ...(nextAttemptOn === null && { status: 'refused' as const }),
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

/**
 * Cancels the unpaid installments of a subscription that no charge holds, but `keepId` (the refused
 * installment that caused the cancellation); returns how many unpaid ones remain held.
 */
export async function cancelUnpaidInstallments(
  trx: Trx,
  subscriptionId: number,
  now: string,
  keepId?: number,
): Promise<number> {
  let cancel = trx
    .updateTable('installments')
    .set({ status: 'canceled', next_attempt_on: null, locked_until: null })
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', UNPAID)
    .where(notHeld(now))
  if (keepId !== undefined) cancel = cancel.where('id', '<>', keepId)
  await cancel.execute()
  let held = trx
    .selectFrom('installments')
    .select((eb) => eb.fn.countAll<number>().as('held'))
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', UNPAID)
  if (keepId !== undefined) held = held.where('id', '<>', keepId)
  return Number((await held.executeTakeFirstOrThrow()).held)
}

/** Installment 1 of an expired pending subscription, unless a charge holds it; false when none was. */
export async function cancelFirstInstallment(
  trx: Trx,
  subscriptionId: number,
  now: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('installments')
    .set({ status: 'canceled', next_attempt_on: null, locked_until: null })
    .where('subscription_id', '=', subscriptionId)
    .where('number', '=', 1)
    .where('status', 'in', UNPAID)
    .where(notHeld(now))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Moves a subscription still in status `from` to `canceled`; false when it no longer was. */
export async function markSubscriptionCanceled(
  trx: Trx,
  subscriptionId: number,
  from: SubscriptionStatus,
  { reason, comment }: { reason: CancellationReason; comment: string | null },
  now: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('subscriptions')
    .set({
      status: 'canceled',
      canceled_at: now,
      cancel_reason: reason,
      cancel_comment: comment,
      updated_at: now,
    })
    .where('id', '=', subscriptionId)
    .where('status', '=', from)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Subscriptions still `pending` whose installment 1 is unpaid and that were contracted before `cutoff`. */
export async function findExpiredPending(
  db: Db,
  { cutoff, after, limit }: { cutoff: string; after: number; limit: number },
): Promise<number[]> {
  const rows = await db
    .selectFrom('subscriptions as s')
    .innerJoin('installments as i', (join) =>
      join.onRef('i.subscription_id', '=', 's.id').on('i.number', '=', 1),
    )
    .select('s.id')
    .where('s.id', '>', after)
    .where('s.status', '=', 'pending')
    .where('i.status', 'in', UNPAID)
    .where('s.created_at', '<', cutoff)
    .orderBy('s.id')
    .limit(limit)
    .execute()
  return rows.map((r) => r.id)
}

/** Installments of an active subscription due by `today` and not paid, oldest first (a card update). */
export async function unpaidDueInstallments(db: Db, subscriptionId: number, today: string) {
  return db
    .selectFrom('installments')
    .select(['id', 'subscription_id', 'number', 'amount', 'failed_attempts'])
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'pending')
    .where('number', '>', 1)
    .where('due_date', '<=', today)
    .orderBy('number')
    .execute()
}
