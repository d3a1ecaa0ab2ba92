import type { ClaimStatus } from '../../db/tables/claim.js'
import { addDays, daysBetween, formatDate, startOfLocalDate } from '../../shared/time.js'

// A claim's deadline (README, Operator console: Sinistros; docs/decisions.md, Claim deadline): 30
// calendar days of the service's zone from the day its last required document arrived, suspended
// while documents are awaited and counted afresh when they arrive. Instants are UTC ISO strings,
// dates `YYYY-MM-DD` in the zone.

export const DEADLINE_DAYS = 30
/** "Due this week": the deadline falls today or in the six days after. */
export const DUE_SOON_DAYS = 7

export type DeadlineState = 'suspended' | 'overdue' | 'due_this_week' | 'on_time'

export interface Deadline {
  state: DeadlineState
  /** The last day to settle (service zone); null while suspended. */
  dueOn: string | null
  /** Calendar days from today to `dueOn` (negative once overdue); null while suspended. */
  daysLeft: number | null
}

/**
 * What a move to `to` at `now` does to the deadline's start (`deadline_started_at`): under review,
 * the documents are complete and the 30 days start afresh; awaiting documents, it is suspended.
 * Any other move keeps it.
 */
export function deadlineStartAfter(to: ClaimStatus, now: string): { deadline_started_at?: string | null } {
  if (to === 'under_review') return { deadline_started_at: now }
  if (to === 'documents_pending') return { deadline_started_at: null }
  return {}
}

/** The day the deadline falls on: `DEADLINE_DAYS` after the local day its count started. */
export const dueOn = (startedAt: string, zone: string): string =>
  addDays(formatDate(startedAt, zone), DEADLINE_DAYS)

/**
 * The deadline of a claim at `now`: none once it is closed (denied, settled, withdrawn), suspended
 * while awaiting documents, else its day and whether it passed or falls this week.
 */
export function claimDeadline(
  claim: { status: ClaimStatus; deadlineStartedAt: string | null },
  now: string,
  zone: string,
): Deadline | null {
  if (claim.status === 'documents_pending') return { state: 'suspended', dueOn: null, daysLeft: null }
  if (!isRunning(claim.status) || claim.deadlineStartedAt === null) return null
  const due = dueOn(claim.deadlineStartedAt, zone)
  const daysLeft = daysBetween(formatDate(now, zone), due)
  const state = daysLeft < 0 ? 'overdue' : daysLeft < DUE_SOON_DAYS ? 'due_this_week' : 'on_time'
  return { state, dueOn: due, daysLeft }
}

/** The statuses a deadline runs in: the claim is complete and not yet settled. */
export const DEADLINE_STATUSES = ['under_review', 'approved'] as const satisfies readonly ClaimStatus[]
const isRunning = (status: ClaimStatus) => (DEADLINE_STATUSES as readonly ClaimStatus[]).includes(status)

/**
 * The same test as claimDeadline's, as bounds on `deadline_started_at` for a query: a count started
 * before `overdueBefore` is overdue (its 30th day is before today); one started before
 * `dueThisWeekBefore` (and not overdue) falls due this week.
 */
export function deadlineBounds(
  now: string,
  zone: string,
): { overdueBefore: string; dueThisWeekBefore: string } {
  const today = formatDate(now, zone)
  return {
    overdueBefore: startOfLocalDate(addDays(today, -DEADLINE_DAYS), zone),
    dueThisWeekBefore: startOfLocalDate(addDays(today, DUE_SOON_DAYS - DEADLINE_DAYS), zone),
  }
}

/** A claim's age: calendar days of the zone since the day it was opened (0 on that day). */
export const ageInDays = (openedAt: string, now: string, zone: string): number =>
  daysBetween(formatDate(openedAt, zone), formatDate(now, zone))
