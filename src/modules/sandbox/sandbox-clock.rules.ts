import { ValidationError } from '../../shared/errors.js'

// The sandbox clock's pure rules (docs/decisions.md, Sandbox test clock): how far one advance moves, and the days it crosses.

export const DAY_SECONDS = 86_400
export const MAX_DAYS = 400
export const MAX_HOURS = 9_600
/** The clock never gets further ahead than this (offsets are stored as 32-bit integers). */
export const MAX_OFFSET_SECONDS = 50 * 365 * DAY_SECONDS

/** The seconds an advance body asks for: exactly one of `days` and `hours` (their bounds are the schema's). */
export function advanceSeconds(body: { days?: number; hours?: number }, offsetSeconds: number): number {
  const { days, hours } = body
  if (days !== undefined && hours !== undefined) {
    const message = 'Send either days or hours, not both.'
    throw new ValidationError({ days: [message], hours: [message] })
  }
  if (days === undefined && hours === undefined) {
    throw new ValidationError({ days: ['The days field is required when hours is not present.'] })
  }
  const key = days === undefined ? 'hours' : 'days'
  const seconds = days === undefined ? (hours ?? 0) * 3_600 : days * DAY_SECONDS
  if (offsetSeconds + seconds > MAX_OFFSET_SECONDS) {
    throw ValidationError.field(key, 'The clock cannot move more than 50 years ahead of real time.')
  }
  return seconds
}

/**
 * The offsets at which the jobs run, one a day crossed: a day after the start each, then the end
 * (an advance of 30 hours runs them at +24 h and +30 h). The jobs at each are those of that day.
 */
export function clockSteps(fromOffset: number, seconds: number): number[] {
  const steps: number[] = []
  for (let moved = DAY_SECONDS; moved < seconds; moved += DAY_SECONDS) steps.push(fromOffset + moved)
  if (seconds > 0) steps.push(fromOffset + seconds)
  return steps
}
