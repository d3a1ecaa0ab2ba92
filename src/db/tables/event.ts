import type { Generated } from 'kysely'

export interface EventsTable {
  /** Insertion order; not the feed's order on PostgreSQL (see `position`). */
  id: Generated<number>
  /** `evt_…`, what partners see. */
  public_id: string
  partner_id: number
  type: string
  /** The JSON of `data.object`, as the resource's GET showed it when the change was written. */
  data: string
  /**
   * The event's place in the feed, given only once its transaction has committed (see
   * event.repository.ts): null until the sequencer reaches it on PostgreSQL, set at insert on SQLite.
   */
  position: number | null
  created_at: string
}
