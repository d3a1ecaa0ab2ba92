/** The time source; tests and the worker's schedule inject their own. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

export const nowIso = (clock: Clock): string => clock.now().toISOString()

/** When something happens: the UTC instant, and the zone whose calendar its dates are read in. */
export interface Moment {
  /** UTC ISO instant. */
  now: string
  timeZone: string
}

/**
 * A partner's time beside real time: what the partner does happens at `now` (its sandbox clock in
 * `test`; docs/decisions.md, Sandbox test clock); what another partner holds is judged at `realNow`, which no partner's
 * clock moves.
 */
export interface PartnerTime {
  now: string
  realNow: string
}

/** `base` moved `offsetSeconds` ahead: a sandbox partner's clock (docs/decisions.md, Sandbox test clock). */
export const shiftedClock = (base: Clock, offsetSeconds: number): Clock =>
  offsetSeconds === 0 ? base : { now: () => new Date(base.now().getTime() + offsetSeconds * 1000) }
