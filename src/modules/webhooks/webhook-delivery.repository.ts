import { sql } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import { skippingLockedRows } from '../../db/database.js'
import type { NewDelivery } from './webhook-endpoint.repository.js'

// The delivery side: the dispatcher turns numbered events into deliveries after its cursor, and
// workers claim due deliveries with a lease (one attempt by one worker at a time), then settle them.

/** An event and an enabled endpoint of its partner registered by then, within one dispatch window. */
export interface EventForEndpoint {
  event_id: number
  public_id: string
  type: string
  /** The event's data for a `ping` (which names its endpoint); null for the others. */
  ping_data: string | null
  endpoint_id: number
  subscribed: string
}

/**
 * Runs `work` on the events numbered after the dispatch cursor (at most `limit`), holding the
 * cursor: on PostgreSQL one dispatcher at a time (another one skips the round instead of waiting);
 * SQLite has one writer at a time. Moves the cursor past them; answers how many events it passed.
 */
export async function dispatchWindow(
  trx: Trx,
  limit: number,
  work: (pairs: EventForEndpoint[]) => Promise<void>,
): Promise<number> {
  const cursor = await skippingLockedRows(
    trx,
    trx.selectFrom('webhook_dispatch').select('position').where('id', '=', 1),
  ).executeTakeFirst()
  if (!cursor) return 0
  const from = Number(cursor.position)
  const window = await trx
    .selectFrom('events')
    .select('position')
    .where('position', '>', from)
    .orderBy('position')
    .limit(limit)
    .execute()
  const last = window.at(-1)?.position
  if (last == null) return 0
  const pairs = await trx
    .selectFrom('events')
    .innerJoin('webhook_endpoints', 'webhook_endpoints.partner_id', 'events.partner_id')
    .select([
      'events.id as event_id',
      'events.public_id',
      'events.type',
      sql<string | null>`case when events.type = 'ping' then events.data end`.as('ping_data'),
      'webhook_endpoints.id as endpoint_id',
      'webhook_endpoints.events as subscribed',
    ])
    .where('events.position', '>', from)
    .where('events.position', '<=', last)
    .where('webhook_endpoints.status', '=', 'enabled')
    // An endpoint receives the events from its registration on (README, Webhooks), however far
    // behind the dispatcher is. An event's time is its partner's clock, never behind the real time
    // an endpoint is stamped with; on SQLite both are toISOString() text, which sorts as time.
    .whereRef('events.created_at', '>=', 'webhook_endpoints.created_at')
    .orderBy('events.position')
    .execute()
  await work(pairs)
  await trx.updateTable('webhook_dispatch').set({ position: last }).where('id', '=', 1).execute()
  return window.length
}

export async function insertDeliveryRows(trx: Trx, rows: NewDelivery[]): Promise<void> {
  // Chunks keep each statement under SQLite's and PostgreSQL's bound-parameter limits.
  for (let i = 0; i < rows.length; i += 500) {
    await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + 500))
      .execute()
  }
}

/**
 * Due deliveries to claim, oldest first: pending, due, not held by a live lease, of an enabled
 * endpoint, of a numbered event (visible in the feed). Per endpoint at most `perEndpoint` are held
 * at once, counting those other workers hold: an endpoint that hangs occupies that many lanes,
 * never all of them, and once full it is left out of the candidates, so that the others' come up.
 * The candidates are the oldest few hundred due (an index range), not every pending row.
 */
export async function findClaimable(
  db: Reader,
  { now, limit, perEndpoint }: { now: string; limit: number; perEndpoint: number },
): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    with held as (
      select endpoint_id, count(*) as busy from webhook_deliveries
      where status = 'pending' and locked_until > ${now}
      group by endpoint_id
    ), due as (
      select d.id, d.endpoint_id, d.next_attempt_at from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id
      join events ev on ev.id = d.event_id
      where d.status = 'pending' and d.next_attempt_at <= ${now}
        and (d.locked_until is null or d.locked_until <= ${now})
        and e.status = 'enabled' and ev.position is not null
        and d.endpoint_id not in (select endpoint_id from held where busy >= ${perEndpoint})
      order by d.next_attempt_at, d.id
      limit ${CANDIDATES}
    )
    select id from (
      select due.id, due.endpoint_id, due.next_attempt_at, coalesce(held.busy, 0) as busy,
        row_number() over (partition by due.endpoint_id order by due.next_attempt_at, due.id) as rank
      from due left join held on held.endpoint_id = due.endpoint_id
    ) ranked
    where rank + busy <= ${perEndpoint}
    order by next_attempt_at, id
    limit ${limit}`.execute(db)
  return rows.map((row) => Number(row.id))
}

const CANDIDATES = 500

/**
 * Takes a lease until `until` on those of `ids` still claimable, counting the attempt; on
 * PostgreSQL rows another worker is claiming at this moment are skipped, not waited for.
 */
export async function claimDeliveries(trx: Trx, ids: number[], now: string, until: string) {
  if (ids.length === 0) return []
  const free = skippingLockedRows(
    trx,
    trx
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('id', 'in', ids)
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)])),
  )
  const claimed = await trx
    .updateTable('webhook_deliveries')
    .set((eb) => ({ locked_until: until, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', free)
    .returning(['id', 'attempts'])
    .execute()
  if (claimed.length === 0) return []
  const details = await trx
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .innerJoin('events as ev', 'ev.id', 'd.event_id')
    .select([
      'd.id',
      'd.endpoint_id',
      'e.url',
      'e.secret',
      'e.previous_secret',
      'e.previous_secret_expires_at',
      'ev.public_id',
      'ev.type',
      'ev.data',
      'ev.created_at',
    ])
    .where(
      'd.id',
      'in',
      claimed.map((row) => row.id),
    )
    .execute()
  const attempts = new Map(claimed.map((row) => [row.id, Number(row.attempts)]))
  return details.map((row) => ({ ...row, attempts: attempts.get(row.id) ?? 1, until }))
}

export type ClaimedDelivery = Awaited<ReturnType<typeof claimDeliveries>>[number]

/** Writes an attempt's outcome and ends the lease, if the lease is still this attempt's. */
export async function settleDelivery(
  trx: Trx,
  claim: { id: number; until: string },
  outcome: {
    status: 'pending' | 'succeeded' | 'failed'
    last_status_code: number | null
    last_error: string | null
    next_attempt_at: string | null
    delivered_at: string | null
  },
): Promise<boolean> {
  const result = await trx
    .updateTable('webhook_deliveries')
    .set({ ...outcome, locked_until: null })
    .where('id', '=', claim.id)
    .where('locked_until', '=', claim.until)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/**
 * `settleDelivery` for many successes at once (one statement): those of `ids` whose lease is still
 * `until` are succeeded and released. Answers the ids written.
 */
export async function settleSucceeded(
  trx: Trx,
  ids: number[],
  until: string,
  { status, at }: { status: number | null; at: string },
): Promise<number[]> {
  const rows = await trx
    .updateTable('webhook_deliveries')
    .set({
      status: 'succeeded',
      last_status_code: status,
      last_error: null,
      next_attempt_at: null,
      delivered_at: at,
      locked_until: null,
    })
    .where('id', 'in', ids)
    .where('locked_until', '=', until)
    .returning('id')
    .execute()
  return rows.map((row) => Number(row.id))
}

/** The endpoint answered: its failures are forgotten. Writes only when there were some. */
export async function endpointAnswered(trx: Trx, endpointId: number): Promise<void> {
  await trx
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('id', '=', endpointId)
    .where('failing_since', 'is not', null)
    .execute()
}

/** Notes a failure: the first one since the last success starts `failing_since`. Answers it. */
export async function endpointFailed(trx: Trx, endpointId: number, now: string): Promise<string | null> {
  await trx
    .updateTable('webhook_endpoints')
    .set({ failing_since: now })
    .where('id', '=', endpointId)
    .where('failing_since', 'is', null)
    .execute()
  const row = await trx
    .selectFrom('webhook_endpoints')
    .select('failing_since')
    .where('id', '=', endpointId)
    .executeTakeFirst()
  return row?.failing_since ?? null
}

export async function disableEndpoint(trx: Trx, endpointId: number, now: string): Promise<void> {
  await trx
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', updated_at: now })
    .where('id', '=', endpointId)
    .execute()
}

/** Deletes deliveries created before `cutoff` (the events' retention). */
export async function deleteDeliveriesBefore(trx: Trx, cutoff: string): Promise<number> {
  const result = await trx
    .deleteFrom('webhook_deliveries')
    .where('created_at', '<', cutoff)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
