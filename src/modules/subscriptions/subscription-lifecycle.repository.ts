import type { ExpressionBuilder, Updateable, UpdateObject } from 'kysely'
import { type Database, notHeld, type Reader, type Trx } from '../../db/database.js'
import { inPartnerScope, type PartnerScope } from '../../db/partner-scope.js'
import {
  type InstallmentStatus,
  type SubscriptionStatus,
  type SubscriptionsTable,
  UNPAID_STATUSES,
} from '../../db/tables/subscription.js'

// The only writers of a subscription's and an installment's status (README, Subscriptions): each
// moves rows still in one of `from` (subscription.rules.ts SUBSCRIPTION_FROM, INSTALLMENT_FROM) to
// `to`; the status condition is the guard, so of two concurrent transitions exactly one moves a row.
// subscription-lifecycle.service.ts records each transition's event beside it.

type SubscriptionChanges = Omit<
  Updateable<SubscriptionsTable>,
  'id' | 'status' | 'partner_id' | 'partner_seq' | 'created_at'
> & { updated_at: string }

/** Moves subscription `id` from one of `from` to `to`, setting `changes` too. False when it was not in `from`. */
export async function transitionSubscription(
  trx: Trx,
  id: number,
  from: readonly SubscriptionStatus[],
  to: SubscriptionStatus,
  changes: SubscriptionChanges,
): Promise<boolean> {
  const result = await trx
    .updateTable('subscriptions')
    .set({ ...changes, status: to })
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** An installment whose first card charge went to the gateway and was never recorded (it may have been approved). */
export const unrecordedCharge = ({ exists, selectFrom }: ExpressionBuilder<Database, 'installments'>) =>
  exists(
    selectFrom('card_attempts')
      .select('card_attempts.id')
      .whereRef('card_attempts.installment_id', '=', 'installments.id')
      .where('card_attempts.recorded_at', 'is', null),
  )

/** Which installments a transition moves, besides their status being in its `from`. */
export type InstallmentRows =
  | {
      id: number
      /** Only while its declined charges are still these: a decline is counted once. */
      failedAttempts?: number
    }
  | {
      subscriptionId: number
      number?: number
      exceptId?: number
      /**
       * Only those no charge holds at this instant and none whose first charge is unrecorded (the
       * gateway may have approved it: the worker's reconciliation records it first).
       */
      unheldAt?: string
    }

type InstallmentChanges =
  | Omit<UpdateObject<Database, 'installments'>, 'status'>
  | ((
      eb: ExpressionBuilder<Database, 'installments'>,
    ) => Omit<UpdateObject<Database, 'installments'>, 'status'>)

/** Moves the installments `rows` names from one of `from` to `to`, setting `changes` too. Answers how many moved. */
export async function transitionInstallments(
  trx: Trx,
  rows: InstallmentRows,
  from: readonly InstallmentStatus[],
  to: InstallmentStatus,
  changes: InstallmentChanges = {},
): Promise<number> {
  let update = trx
    .updateTable('installments')
    .set((eb) => ({ ...(typeof changes === 'function' ? changes(eb) : changes), status: to }))
    .where('status', 'in', [...from])
  if ('id' in rows) {
    update = update.where('id', '=', rows.id)
    if (rows.failedAttempts !== undefined) update = update.where('failed_attempts', '=', rows.failedAttempts)
  } else {
    update = update.where('subscription_id', '=', rows.subscriptionId)
    if (rows.number !== undefined) update = update.where('number', '=', rows.number)
    if (rows.exceptId !== undefined) update = update.where('id', '<>', rows.exceptId)
    if (rows.unheldAt !== undefined)
      update = update.where(notHeld(rows.unheldAt)).where((eb) => eb.not(unrecordedCharge(eb)))
  }
  const result = await update.executeTakeFirst()
  return Number(result.numUpdatedRows)
}

// A subscription's cancellation and the 30-day expiry's queries.

/** Unpaid installments a cancellation must leave alone: a charge holds them, or one is unrecorded. */
export interface UncancelableInstallments {
  /** Held by a card call in flight (its lease). */
  held: number
  /** With a first charge the worker has yet to record (see unrecordedCharge). */
  unrecorded: number
}

/** A subscription's stored status; undefined when there is none. */
export async function findSubscriptionStatus(
  db: Reader,
  id: number,
): Promise<SubscriptionStatus | undefined> {
  const row = await db.selectFrom('subscriptions').select('status').where('id', '=', id).executeTakeFirst()
  return row?.status
}

/**
 * The unpaid installments of a subscription a cancellation left (all but `keepId`, the refused one
 * that caused it): those a charge holds, and those with a first charge still unrecorded.
 */
export async function countUncancelable(
  db: Reader,
  subscriptionId: number,
  keepId?: number,
): Promise<UncancelableInstallments> {
  let left = db
    .selectFrom('installments')
    .select((eb) => [
      eb.fn.countAll<number>().as('left'),
      eb.fn.sum<number>(eb.case().when(unrecordedCharge(eb)).then(1).else(0).end()).as('unrecorded'),
    ])
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', UNPAID_STATUSES)
  if (keepId !== undefined) left = left.where('id', '<>', keepId)
  const counts = await left.executeTakeFirstOrThrow()
  const unrecorded = Number(counts.unrecorded ?? 0)
  return { held: Number(counts.left) - unrecorded, unrecorded }
}

/** Subscriptions still `pending` whose installment 1 is unpaid and that were contracted before `cutoff`. */
export async function findExpiredPending(
  db: Reader,
  { cutoff, after, limit, scope }: { cutoff: string; after: number; limit: number; scope?: PartnerScope },
): Promise<number[]> {
  const rows = await db
    .selectFrom('subscriptions as s')
    .innerJoin('installments as i', (join) =>
      join.onRef('i.subscription_id', '=', 's.id').on('i.number', '=', 1),
    )
    .select('s.id')
    .where('s.id', '>', after)
    .where('s.status', '=', 'pending')
    .where('i.status', 'in', UNPAID_STATUSES)
    .where('s.created_at', '<', cutoff)
    .where(inPartnerScope(scope, 's.partner_id'))
    .orderBy('s.id')
    .limit(limit)
    .execute()
  return rows.map((r) => r.id)
}

// The end of a subscription's last month (README, Subscriptions): which ones reached it.

/** What recording an expiry reads of a subscription. */
export interface EndingSubscription {
  id: number
  status: SubscriptionStatus
  ends_on: string
}

/** Active (`pago`) subscriptions whose end day has come by `today`, by id after `after`: their expiry is due. */
export async function findEndedSubscriptions(
  db: Reader,
  { today, after, limit, scope }: { today: string; after: number; limit: number; scope?: PartnerScope },
): Promise<EndingSubscription[]> {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'status', 'ends_on'])
    .where('status', '=', 'pago')
    .where('ends_on', '<=', today)
    .where('id', '>', after)
    .where(inPartnerScope(scope, 'partner_id'))
    .orderBy('id')
    .limit(limit)
    .execute()
}
