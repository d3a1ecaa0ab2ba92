import { randomBytes } from 'node:crypto'
import type { Db, Reader, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import {
  findRecipient,
  insertMessages,
  keepDueMessages,
  listCustomerMessages,
  listPartnerMessages,
  type MessageRow,
} from './message.repository.js'
import { type MessageKind, subjectForOperator } from './message.rules.js'
import { signInContent } from './message-content.js'

export type { MessageRow }

export interface SignInMessage {
  customerId: number
  /** The 6-digit code the portal asks for. */
  code?: string
  /** A single-use sign-in link (createSignInLink). */
  link?: string
  /** When it is queued; real time when absent (sign-in keeps real time, like tokens). */
  now?: Date
}

/**
 * Queues the portal's sign-in code or link for the customer in the caller's transaction; the
 * worker sends it after the commit (or keeps it, without a mail server). Sent whatever the
 * partner's `notify_insured`: without it the insured cannot sign in.
 */
export async function queueSignInMessage(
  trx: Trx,
  { customerId, code, link, now }: SignInMessage,
): Promise<void> {
  if (!code && !link) throw new Error('queueSignInMessage needs a code or a link')
  const recipient = await findRecipient(trx, customerId)
  if (!recipient) throw new Error(`queueSignInMessage: no customer ${customerId}`)
  const content = signInContent({ name: recipient.name, code, link })
  const at = (now ?? new Date()).toISOString()
  await insertMessages(trx, [
    {
      partner_id: recipient.partner_id,
      customer_id: customerId,
      kind: 'sign_in',
      event_public_id: null,
      message_id: `sign-in.${randomBytes(12).toString('hex')}`,
      to_address: recipient.email,
      subject: content.subject,
      text_body: content.text,
      html_body: content.html,
      attachment: null,
      state: 'pending',
      next_attempt_at: at,
      created_at: at,
    },
  ])
}

/** A partner's customers' messages, newest first (GET /sandbox/messages). */
export async function partnerMessages(
  db: Reader,
  partnerId: number,
  filter: { customerId?: number; kind?: string; limit: number },
): Promise<MessageRow[]> {
  return listPartnerMessages(db, partnerId, filter)
}

/** Without a mail server (AMPARO_SMTP_URL unset): the due messages are kept, not sent. */
export async function keepDue(db: Db, now: Date): Promise<number> {
  return retryingTransaction(db, (trx) => keepDueMessages(trx, now.toISOString()))
}

/** A customer's messages for the operator, newest first, at most 50. */
export async function customerMessages(db: Reader, customerId: number, env: 'test' | 'production') {
  const rows = await listCustomerMessages(db, customerId, 50)
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind as MessageKind,
    subject: subjectForOperator(row.kind, row.subject, env),
    to: row.to_address,
    state: row.state,
    attempts: row.attempts,
    last_error: row.last_error,
    created_at: row.created_at,
    sent_at: row.sent_at,
  }))
}
