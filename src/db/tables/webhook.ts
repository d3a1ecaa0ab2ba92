import type { Generated } from 'kysely'

export interface WebhookEndpointsTable {
  id: Generated<number>
  partner_id: number
  url: string
  /** JSON array of event types, or `["*"]`. */
  events: string
  description: string | null
  status: 'enabled' | 'disabled'
  /** `whsec_…`: the service signs with it, so it is kept as issued; never listed nor logged. */
  secret: string
  /** The secret before the last rotation; signs too until `previous_secret_expires_at`. */
  previous_secret: string | null
  previous_secret_expires_at: string | null
  /** The first failed attempt since the last success; null while the endpoint answers. */
  failing_since: string | null
  created_at: string
  updated_at: string
}

export interface WebhookDeliveriesTable {
  id: Generated<number>
  endpoint_id: number
  /** The event's row (`events.id`). */
  event_id: number
  event_public_id: string
  event_type: string
  status: 'pending' | 'succeeded' | 'failed'
  /** Attempts started (counted when claimed, so that one cut short by a dead worker counts too). */
  attempts: Generated<number>
  last_status_code: number | null
  last_error: string | null
  /** When the next attempt is due; null once succeeded or failed. */
  next_attempt_at: string | null
  /** A worker's lease on the delivery while it attempts it. */
  locked_until: string | null
  delivered_at: string | null
  created_at: string
}

/** One row: the last feed position turned into deliveries. */
export interface WebhookDispatchTable {
  id: number
  position: number
}
