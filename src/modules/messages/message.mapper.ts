import { formatTimestamp } from '../../shared/time.js'
import type { MessageRow } from './message.repository.js'
import type { MessageKind } from './message.rules.js'
import type { SandboxMessage } from './message.schemas.js'

export function sandboxMessage(row: MessageRow, timeZone: string): SandboxMessage {
  return {
    id: row.id,
    customer_id: row.customer_id,
    kind: row.kind as MessageKind,
    event_id: row.event_public_id,
    to: row.to_address,
    subject: row.subject,
    text: row.text_body,
    state: row.state,
    attempts: row.attempts,
    created_at: formatTimestamp(row.created_at, timeZone),
    sent_at: row.sent_at === null ? null : formatTimestamp(row.sent_at, timeZone),
  }
}
