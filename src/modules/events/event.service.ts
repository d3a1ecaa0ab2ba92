import { randomUUID } from 'node:crypto'
import type { Config } from '../../config.js'
import type { Db, Reader, Trx } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'
import { NotFoundError, ValidationError } from '../../shared/errors.js'
import { formatTimestamp } from '../../shared/time.js'
import {
  deleteEventsBefore,
  eventsAwaitNumbers,
  findEvent,
  insertEvent,
  listEventsAfter,
  numberEvents,
} from './event.repository.js'

// Every state change writes its event in the same transaction (a transactional
// outbox), through recordEvent alone; partners read them with GET /events (and, later, webhooks).

export const EVENT_TYPES = [
  'subscription.created',
  'subscription.activated',
  'subscription.canceled',
  // Written by the worker or the first read once the last installment's month has passed.
  'subscription.expired',
  'installment.paid',
  'installment.payment_failed',
  'annual_plan.created',
  'annual_plan.paid',
  'annual_plan.protected',
  'annual_plan.expired',
  'annual_plan.cancellation_requested',
  'annual_plan.canceled',
  // Written by the refunds' module when `cancellation.refund_status` changes.
  'annual_plan.refund_updated',
  // Written by Stripe's dispute events (a chargeback opened, then won or lost).
  'payment.disputed',
  'claim.opened',
  'claim.under_review',
  'claim.documents_requested',
  'claim.approved',
  'claim.denied',
  'claim.settled',
  'claim.withdrawn',
  // Written by POST /webhook-endpoints/{id}/ping, for that endpoint alone.
  'ping',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

/** Events are kept this long (README, Events), then the worker purges them. */
export const EVENT_RETENTION_DAYS = 30

/**
 * How an event's resource is rendered: the links' base address and the service zone. Events are
 * rendered once, for whoever reads them later (a webhook, a poll from anywhere), so the base is the
 * configured public address, not the Host of the request that caused the change.
 */
export interface RenderingContext {
  base: string
  timeZone: string
}

/** AMPARO_PUBLIC_URL, or the local address the service listens on by default. */
export function renderingContext(config: Pick<Config, 'publicUrl' | 'port' | 'timeZone'>): RenderingContext {
  return { base: config.publicUrl || `http://localhost:${config.port}`, timeZone: config.timeZone }
}

export interface NewEvent {
  partnerId: number
  type: EventType
  /** The resource exactly as its GET shows it now (the owning module's mapper). */
  object: object
  /** UTC ISO instant of the change. */
  now: string
}

/**
 * `evt_` and 32 hex digits: the time in milliseconds (12), then 80 random bits from Node's pooled
 * UUIDs (cheaper than randomBytes). Time first, so each new id lands at the end of the unique
 * index instead of on a random page of it (docs/decisions.md, Performance).
 */
function newEventId(): string {
  const random = randomUUID().replaceAll('-', '')
  // The UUID's version and variant digits (positions 12 and 16) are fixed, so they are left out.
  return `evt_${Date.now().toString(16).padStart(12, '0')}${random.slice(0, 8)}${random.slice(20)}`
}

/** Writes an event in the caller's transaction: it commits, or rolls back, with the change. Answers its id. */
export async function recordEvent(trx: Trx, event: NewEvent): Promise<string> {
  const id = newEventId()
  await insertEvent(trx, {
    public_id: id,
    partner_id: event.partnerId,
    type: event.type,
    data: JSON.stringify(event.object),
    created_at: event.now,
  })
  return id
}

type EventRow = Pick<
  NonNullable<Awaited<ReturnType<typeof findEvent>>>,
  'public_id' | 'type' | 'data' | 'created_at'
>

/** The event as GET /events/{id} shows it: what webhooks deliver too. */
export function renderEvent(row: EventRow, timeZone: string) {
  return {
    id: row.public_id,
    type: row.type as EventType,
    created_at: formatTimestamp(row.created_at, timeZone),
    data: { object: JSON.parse(row.data) as object },
  }
}

/** The partner's event row (its internal id too), numbered or not; 404 when it is not theirs. */
export async function findPartnerEvent(db: Reader, partnerId: number, id: string) {
  const row = await findEvent(db, partnerId, id)
  if (!row) throw new NotFoundError('Event')
  return row
}

/** The partner's event; 404 when it is not theirs (or was purged). */
export async function showEvent(db: Db, partnerId: number, id: string, timeZone: string) {
  const row = await findEvent(db, partnerId, id)
  if (!row) throw new NotFoundError('Event')
  return renderEvent(row, timeZone)
}

/**
 * The partner's events after the one named `after` (from the first when absent), oldest first:
 * every event exactly once, in the order they became visible, however their transactions
 * interleaved (see event.repository.ts). An `after` that was not numbered yet when read (committed
 * a moment ago) has nothing after it yet.
 */
export async function listEvents(
  db: Db,
  partnerId: number,
  query: { after?: string; type?: EventType; limit: number },
  timeZone: string,
) {
  await sequenceEvents(db)
  let position = 0
  if (query.after !== undefined) {
    const cursor = await findEvent(db, partnerId, query.after)
    if (!cursor) {
      throw new ValidationError({
        after: [
          `The after field must be the id of one of your events of the last ${EVENT_RETENTION_DAYS} days.`,
        ],
      })
    }
    if (cursor.position === null) return { data: [], has_more: false }
    position = Number(cursor.position)
  }
  const rows = await listEventsAfter(db, partnerId, { position, type: query.type, limit: query.limit + 1 })
  return {
    data: rows.slice(0, query.limit).map((row) => renderEvent(row, timeZone)),
    has_more: rows.length > query.limit,
  }
}

/** The worker's purge: events older than the retention period. */
export async function purgeEvents(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000).toISOString()
  return retryingTransaction(db, (trx) => deleteEventsBefore(trx, cutoff))
}

/**
 * PostgreSQL: numbers the committed events that wait for a position (event.repository.ts tells
 * why they wait), in a transaction of its own; answers how many. Nothing to do on SQLite.
 */
export async function sequenceEvents(db: Db): Promise<number> {
  if (!(await eventsAwaitNumbers(db))) return 0
  return retryingTransaction(db, numberEvents)
}
