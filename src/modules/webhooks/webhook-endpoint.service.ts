import { randomBytes } from 'node:crypto'
import type { Db, Reader, Trx } from '../../db/database.js'
import { NotFoundError, ValidationError } from '../../shared/errors.js'
import { findPartnerEvent, recordEvent } from '../events/event.service.js'
import { MAX_ENDPOINTS, normalizeEvents, PREVIOUS_SECRET_HOURS, receives } from './webhook.rules.js'
import {
  countEndpoints,
  deleteEndpoint,
  type EndpointRow,
  enabledEndpoints,
  findEndpoint,
  insertDeliveries,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  lockPartner,
  updateEndpoint,
} from './webhook-endpoint.repository.js'
import type { EndpointBody, EndpointPatch } from './webhook-endpoint.schemas.js'
import { type Environment, refusedUrl } from './webhook-url.js'

/** 422 under `url` when the address breaks the webhook URL rules (webhook-url.ts) (DNS resolved: call it outside a transaction). */
export async function checkUrl(url: string, env: Environment): Promise<void> {
  const refused = await refusedUrl(url, env)
  if (refused) throw ValidationError.field('url', refused)
}

/** Registers an endpoint (its URL checked already); at most 10 a partner. */
export async function createEndpoint(trx: Trx, partnerId: number, body: EndpointBody, now: string) {
  await lockPartner(trx, partnerId)
  if ((await countEndpoints(trx, partnerId)) >= MAX_ENDPOINTS) {
    throw ValidationError.field(
      'url',
      `A partner may have at most ${MAX_ENDPOINTS} webhook endpoints; delete one before adding another.`,
    )
  }
  return insertEndpoint(trx, {
    partner_id: partnerId,
    url: body.url,
    events: JSON.stringify(normalizeEvents(body.events)),
    description: body.description || null,
    status: 'enabled',
    secret: newSecret(),
    created_at: now,
    updated_at: now,
  })
}

/** The partner's endpoints, by id: what `GET /webhook-endpoints` lists. */
export async function endpointsOf(db: Db, partnerId: number): Promise<EndpointRow[]> {
  return listEndpoints(db, partnerId)
}

export async function showEndpoint(db: Reader, partnerId: number, id: number): Promise<EndpointRow> {
  const row = await findEndpoint(db, partnerId, id)
  if (!row) throw new NotFoundError('Webhook endpoint')
  return row
}

/** Deletes one of the partner's endpoints; another partner's is 404, like an unknown id. */
export async function removeEndpoint(trx: Trx, partnerId: number, id: number): Promise<void> {
  if (!(await deleteEndpoint(trx, partnerId, id))) throw new NotFoundError('Webhook endpoint')
}

/** One page of an endpoint's deliveries, newest first, and their total; 404 when it is not the partner's. */
export async function deliveryPage(db: Db, partnerId: number, id: number, offset: number, limit: number) {
  const endpoint = await showEndpoint(db, partnerId, id)
  return listDeliveries(db, endpoint.id, offset, limit)
}

/** Changes the fields sent; enabling again forgets the failures that disabled it. */
export async function patchEndpoint(
  trx: Trx,
  partnerId: number,
  id: number,
  patch: EndpointPatch,
  now: string,
) {
  const row = await updateEndpoint(trx, partnerId, id, {
    ...(patch.url !== undefined && { url: patch.url }),
    ...(patch.events !== undefined && { events: JSON.stringify(normalizeEvents(patch.events)) }),
    ...(patch.description !== undefined && { description: patch.description || null }),
    ...(patch.status !== undefined && { status: patch.status }),
    ...(patch.status === 'enabled' && { failing_since: null }),
    updated_at: now,
  })
  if (!row) throw new NotFoundError('Webhook endpoint')
  return row
}

/** A new secret; the current one keeps signing beside it for 24 h. */
export async function rotateSecret(trx: Trx, partnerId: number, id: number, now: string): Promise<string> {
  const current = await showEndpoint(trx, partnerId, id)
  const secret = newSecret()
  await updateEndpoint(trx, partnerId, id, {
    secret,
    previous_secret: current.secret,
    previous_secret_expires_at: new Date(Date.parse(now) + PREVIOUS_SECRET_HOURS * 3_600_000).toISOString(),
    updated_at: now,
  })
  return secret
}

/** Writes a `ping` event for the endpoint; the dispatcher sends it to that endpoint alone. */
export async function pingEndpoint(trx: Trx, partnerId: number, id: number, now: string): Promise<string> {
  await showEndpoint(trx, partnerId, id)
  return recordEvent(trx, { partnerId, type: 'ping', object: { endpoint_id: id }, now })
}

/** Schedules the event again to every enabled endpoint that receives it; answers how many. */
export async function redeliverEvent(
  trx: Trx,
  partnerId: number,
  eventId: string,
  now: string,
): Promise<number> {
  const event = await findPartnerEvent(trx, partnerId, eventId)
  const target = { type: event.type, endpointId: pingTarget(event) }
  const rows = (await enabledEndpoints(trx, partnerId))
    .filter((endpoint) => receives({ id: endpoint.id, events: JSON.parse(endpoint.events) }, target))
    .map((endpoint) => ({
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_public_id: event.public_id,
      event_type: event.type,
      status: 'pending' as const,
      next_attempt_at: now,
      created_at: now,
    }))
  await insertDeliveries(trx, rows)
  return rows.length
}

/** The endpoint a `ping` event is for. */
export function pingTarget(event: { type: string; data: string }): number | undefined {
  return event.type === 'ping' ? (JSON.parse(event.data) as { endpoint_id: number }).endpoint_id : undefined
}

/** `whsec_` and the base64 of 32 random bytes (Standard Webhooks' format). */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}
