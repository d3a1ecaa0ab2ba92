import { type Insertable, sql } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import { numbersEventsAfterCommit } from '../../db/database.js'
import { insertRows, prepared } from '../../db/prepared.js'
import type { EventsTable } from '../../db/tables/event.js'

// The feed's order is the order events became visible, not the order they were inserted. On
// PostgreSQL a transaction that inserted first may commit last: had its row a number already, a
// reader could pass that number before the row appeared and never see it (the outbox gap). So rows
// are inserted without a position and one serialized step (sequenceEvents) numbers the committed
// ones; readers see numbered rows only. On SQLite one writer at a time holds the database from its
// first write to its commit, so commit order is insert order and the position is given at insert.

/** Any value: one lock for all sequencers of the database, whichever schema they work in. */
const SEQUENCER_LOCK = 0x616d_7076 // "ampv"

/** Writes one event in the caller's transaction. */
export async function insertEvent(trx: Trx, row: Omit<Insertable<EventsTable>, 'position'>): Promise<void> {
  if (numbersEventsAfterCommit(trx)) await insertRows(trx, 'events', [row])
  else await insertNumberedEvent(trx, row.public_id, row.partner_id, row.type, row.data, row.created_at)
}

/**
 * SQLite: the event numbered after the last one. Compiled once (prepared), not built by Kysely on
 * each call: see docs/benchmarks.md, Optimisations kept.
 */
const insertNumberedEvent = prepared(
  (trx: Trx, public_id: string, partner_id: number, type: string, data: string, created_at: string) =>
    trx.insertInto('events').values({
      public_id,
      partner_id,
      type,
      data,
      created_at,
      position: (eb) =>
        eb.selectFrom('events').select(sql<number>`coalesce(max(position), 0) + 1`.as('next')),
    }),
)

/** PostgreSQL: whether a committed event waits for its position (sequenceEvents). Never on SQLite. */
export async function eventsAwaitNumbers(db: Reader): Promise<boolean> {
  if (!numbersEventsAfterCommit(db)) return false
  const waiting = await db.selectFrom('events').select('id').where('position', 'is', null).limit(1).execute()
  return waiting.length > 0
}

/**
 * PostgreSQL: numbers every committed event that has no position yet, after the highest given,
 * in insertion order; answers how many. Sequencers take turns (a transaction-level advisory lock,
 * held until commit), so each one's positions follow every position committed before it: the
 * numbered rows are always a prefix of the feed. Uncommitted rows are invisible to it and are
 * numbered by a later run, after whatever was numbered meanwhile.
 */
export async function numberEvents(trx: Trx): Promise<number> {
  await sql`select pg_advisory_xact_lock(${SEQUENCER_LOCK})`.execute(trx)
  const result = await sql`
    update events set position = numbered.position
    from (
      select id, (select coalesce(max(position), 0) from events) + row_number() over (order by id) as position
      from events where position is null
    ) as numbered
    where events.id = numbered.id`.execute(trx)
  return Number(result.numAffectedRows ?? 0)
}

/** The partner's event with this public id, numbered or not. */
export async function findEvent(db: Reader, partnerId: number, publicId: string) {
  return db
    .selectFrom('events')
    .select(['id', 'public_id', 'type', 'data', 'position', 'created_at'])
    .where('partner_id', '=', partnerId)
    .where('public_id', '=', publicId)
    .executeTakeFirst()
}

/** The partner's numbered events after `position`, oldest first, of `type` when given. */
export async function listEventsAfter(
  db: Reader,
  partnerId: number,
  { position, type, limit }: { position: number; type?: string; limit: number },
) {
  let query = db
    .selectFrom('events')
    .select(['public_id', 'type', 'data', 'position', 'created_at'])
    .where('partner_id', '=', partnerId)
    .where('position', '>', position)
  if (type !== undefined) query = query.where('type', '=', type)
  return query.orderBy('position').limit(limit).execute()
}

/**
 * Deletes numbered events created before `cutoff`, but never the newest numbered one: positions
 * continue from it, so a position once given is never given again.
 */
export async function deleteEventsBefore(trx: Trx, cutoff: string): Promise<number> {
  const result = await trx
    .deleteFrom('events')
    .where('created_at', '<', cutoff)
    .where('position', '<', (eb) => eb.selectFrom('events').select((e) => e.fn.max('position').as('last')))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
