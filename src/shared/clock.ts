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

/** `base` moved `offsetSeconds` ahead: a sandbox partner's clock (CONTRACT §15). */
export const shiftedClock = (base: Clock, offsetSeconds: number): Clock =>
  offsetSeconds === 0 ? base : { now: () => new Date(base.now().getTime() + offsetSeconds * 1000) }
