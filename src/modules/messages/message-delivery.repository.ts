import { type Reader, skippingLockedRows, type Trx } from '../../db/database.js'
import type { MessageState } from '../../db/tables/message.js'

// The worker's side of the messages: the event feed's cursor, the lease on due messages, and
// each attempt's record.

/** The dispatch cursor, locked until commit (a second worker skips the window); undefined when held. */
export async function lockDispatchCursor(trx: Trx): Promise<number | undefined> {
  const row = await skippingLockedRows(
    trx,
    trx.selectFrom('message_dispatch').select('position').where('id', '=', 1),
  ).executeTakeFirst()
  return row ? Number(row.position) : undefined
}

/** The events numbered after `from`, oldest first: their position, id, partner, type and data. */
export async function eventsAfter(trx: Trx, from: number, limit: number) {
  const rows = await trx
    .selectFrom('events')
    .select(['position', 'public_id', 'partner_id', 'type', 'data'])
    .where('position', '>', from)
    .orderBy('position')
    .limit(limit)
    .execute()
  return rows.map((row) => ({ ...row, position: Number(row.position) }))
}

export async function moveDispatchCursor(trx: Trx, position: number): Promise<void> {
  await trx.updateTable('message_dispatch').set({ position }).where('id', '=', 1).execute()
}

/** Each subscription's customer and its partner's gateway (an installment's event names only its subscription). */
export async function subscriptionsOf(db: Reader, ids: number[]) {
  if (ids.length === 0) return []
  return db
    .selectFrom('subscriptions')
    .innerJoin('partners', 'partners.id', 'subscriptions.partner_id')
    .select(['subscriptions.id', 'subscriptions.customer_id', 'partners.gateway'])
    .where('subscriptions.id', 'in', ids)
    .execute()
}

/** The customers' addresses and names, and their partners' switches. */
export async function recipientsOf(db: Reader, customerIds: number[]) {
  if (customerIds.length === 0) return []
  return db
    .selectFrom('customers')
    .innerJoin('partners', 'partners.id', 'customers.partner_id')
    .select([
      'customers.id as customer_id',
      'customers.partner_id',
      'customers.name',
      'customers.email',
      'partners.name as partner_name',
      'partners.notify_insured',
    ])
    .where('customers.id', 'in', customerIds)
    .execute()
}

/** A message the worker holds (its lease `until`) while it sends it. */
export interface ClaimedMessage {
  id: number
  message_id: string
  to_address: string
  subject: string
  text_body: string
  html_body: string
  attachment: string | null
  partner_id: number
  attempts: number
  created_at: string
  until: string
}

/** Leases up to `limit` due pending messages until `until`, counting the attempt. */
export async function claimDueMessages(
  trx: Trx,
  { now, until, limit }: { now: string; until: string; limit: number },
): Promise<ClaimedMessage[]> {
  const free = skippingLockedRows(
    trx,
    trx
      .selectFrom('messages')
      .select('id')
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(limit),
  )
  const rows = await trx
    .updateTable('messages')
    .set((eb) => ({ locked_until: until, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', free)
    .returning([
      'id',
      'message_id',
      'to_address',
      'subject',
      'text_body',
      'html_body',
      'attachment',
      'partner_id',
      'attempts',
      'created_at',
    ])
    .execute()
  return rows.map((row) => ({ ...row, until }))
}

/**
 * Writes an attempt's outcome: a refusal only if the lease it was made under still holds (another
 * worker may have taken the message since), a success whenever the message is still pending.
 * Answers whether it was written. The attempt is recorded either way.
 */
export async function settleMessage(
  trx: Trx,
  message: { id: number; until: string },
  outcome: {
    state: MessageState
    next_attempt_at: string | null
    last_error: string | null
    sent_at: string | null
  },
  attempt: { outcome: 'sent' | 'refused'; response: string | null; attempted_at: string },
): Promise<boolean> {
  await trx
    .insertInto('message_attempts')
    .values({ message_id: message.id, ...attempt })
    .execute()
  const result = await trx
    .updateTable('messages')
    .set({ ...outcome, locked_until: null })
    .where('id', '=', message.id)
    .where('state', '=', 'pending')
    .$if(outcome.state !== 'sent', (q) => q.where('locked_until', '=', message.until))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Every attempt of the customer's messages, oldest first (the console's section). */
export async function attemptsOf(db: Reader, messageIds: number[]) {
  if (messageIds.length === 0) return []
  return db
    .selectFrom('message_attempts')
    .select(['message_id', 'outcome', 'response', 'attempted_at'])
    .where('message_id', 'in', messageIds)
    .orderBy('id')
    .execute()
}
