import type { Generated } from 'kysely'

export type MessageState = 'pending' | 'sent' | 'kept' | 'failed'

/** An e-mail to an insured, written whole when queued and sent later by the worker. */
export interface MessagesTable {
  id: Generated<number>
  partner_id: number
  customer_id: number
  /** What the message says (MESSAGE_KINDS in messages.rules.ts). */
  kind: string
  /** The event it announces; null for a sign-in message. */
  event_public_id: string | null
  /** The `Message-ID` header, unique: derived from the event and the customer when there is one. */
  message_id: string
  to_address: string
  subject: string
  text_body: string
  html_body: string
  /** JSON naming what is attached when sent (the certificate of a contract); null when nothing. */
  attachment: string | null
  state: MessageState
  /** Attempts started (counted when claimed, so that one cut short by a dead worker counts too). */
  attempts: Generated<number>
  last_error: string | null
  /** When the next attempt is due; null once sent, kept or failed. */
  next_attempt_at: string | null
  /** A worker's lease on the message while it sends it. */
  locked_until: string | null
  sent_at: string | null
  created_at: string
}

/** One attempt to hand a message to the mail server. */
export interface MessageAttemptsTable {
  id: Generated<number>
  message_id: number
  outcome: 'sent' | 'refused'
  /** The server's answer or the error, without the message's content. */
  response: string | null
  attempted_at: string
}

/** One row: the last event feed position turned into messages. */
export interface MessageDispatchTable {
  id: number
  position: number
}

/** The portal's single-use sign-in links: only the token's SHA-256 is kept. */
export interface SignInLinksTable {
  id: Generated<number>
  customer_id: number
  token_hash: string
  expires_at: string
  used_at: string | null
  created_at: string
}
