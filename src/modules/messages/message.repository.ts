import type { Insertable, Selectable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import type { MessagesTable } from '../../db/tables/message.js'

export type MessageRow = Selectable<MessagesTable>
export type NewMessageRow = Insertable<MessagesTable>

/** Whom a message goes to: the customer's address and name, and the partner's switch. */
export async function findRecipient(db: Reader, customerId: number) {
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
    .where('customers.id', '=', customerId)
    .executeTakeFirst()
}
export type Recipient = NonNullable<Awaited<ReturnType<typeof findRecipient>>>

/**
 * Queues messages; one whose `message_id` is taken already (the same event and customer) is left
 * out. Answers how many were queued.
 */
export async function insertMessages(trx: Trx, rows: NewMessageRow[]): Promise<number> {
  if (rows.length === 0) return 0
  const result = await trx
    .insertInto('messages')
    .values(rows)
    .onConflict((oc) => oc.column('message_id').doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0)
}

/** A partner's customers' messages, newest first (the sandbox's list). */
export async function listPartnerMessages(
  db: Reader,
  partnerId: number,
  { customerId, kind, limit }: { customerId?: number; kind?: string; limit: number },
): Promise<MessageRow[]> {
  let query = db.selectFrom('messages').selectAll().where('partner_id', '=', partnerId)
  if (customerId !== undefined) query = query.where('customer_id', '=', customerId)
  if (kind !== undefined) query = query.where('kind', '=', kind)
  return query.orderBy('id', 'desc').limit(limit).execute()
}

/** One customer's messages, newest first (the console's section). */
export async function listCustomerMessages(db: Reader, customerId: number, limit: number) {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
}

/** Without a mail server: every due pending message is kept, not sent. Answers how many. */
export async function keepDueMessages(trx: Trx, now: string): Promise<number> {
  const result = await trx
    .updateTable('messages')
    .set({ state: 'kept', next_attempt_at: null })
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}
