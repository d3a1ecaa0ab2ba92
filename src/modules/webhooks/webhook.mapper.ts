import type { WebhookDeliveriesTable } from '../../db/tables/webhook.js'
import { formatTimestamp } from '../../shared/time.js'
import type { EndpointRow } from './webhook-endpoint.repository.js'

/** An endpoint as GET shows it: never its secret. */
export function endpointResource(row: EndpointRow, timeZone: string) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    status: row.status,
    created_at: formatTimestamp(row.created_at, timeZone),
  }
}

type DeliveryRow = Omit<WebhookDeliveriesTable, 'id' | 'attempts'> & { id: number; attempts: number }

export function deliveryResource(row: DeliveryRow, timeZone: string) {
  const at = (value: string | null) => (value === null ? null : formatTimestamp(value, timeZone))
  return {
    id: row.id,
    event_id: row.event_public_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? at(row.next_attempt_at) : null,
    delivered_at: at(row.delivered_at),
    created_at: formatTimestamp(row.created_at, timeZone),
  }
}
