// The pure rules of webhooks (docs/decisions.md, Webhooks): who receives an event, when a failed delivery is
// tried again, when an endpoint is given up on.

/** Retries after a failed attempt, in seconds: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h, 24 h. */
export const RETRY_DELAYS = [5, 300, 1800, 7200, 18_000, 36_000, 86_400, 86_400]
/** An endpoint whose attempts have all failed for this long is disabled. */
export const FAILING_DAYS_TO_DISABLE = 3
/** After a rotation the previous secret signs too, this long. */
export const PREVIOUS_SECRET_HOURS = 24
export const MAX_ENDPOINTS = 10

/** Whether an endpoint receives an event: its types (or `*`); a ping only its own endpoint. */
export function receives(
  endpoint: { id: number; events: string[] },
  event: { type: string; endpointId?: number },
): boolean {
  if (event.type === 'ping') return event.endpointId === endpoint.id
  return endpoint.events.includes('*') || endpoint.events.includes(event.type)
}

/** `*` alone when listed, else the types once each, in the order given. */
export function normalizeEvents(events: string[] | undefined): string[] {
  if (!events || events.includes('*')) return ['*']
  return [...new Set(events)]
}

/**
 * When attempt `attempts` (1-based) failed: the next attempt's instant, or null when it was the
 * last. `random` ∈ [0, 1) spreads retries ±10 % so that a receiver back up is not hit by all at once.
 */
export function nextAttemptAt(attempts: number, now: Date, random: number = Math.random()): Date | null {
  const delay = RETRY_DELAYS[attempts - 1]
  if (delay === undefined) return null
  const jitter = 1 + (random * 2 - 1) * 0.1
  return new Date(now.getTime() + Math.round(delay * jitter * 1000))
}

/** Whether an endpoint failing since `failingSince` (null: it answers) is to be disabled now. */
export function failingTooLong(failingSince: string | null, now: Date): boolean {
  return (
    failingSince !== null && now.getTime() - Date.parse(failingSince) >= FAILING_DAYS_TO_DISABLE * 86_400_000
  )
}

/** The secrets that sign now: the current one, and the previous one within 24 h of a rotation. */
export function signingSecrets(
  endpoint: {
    secret: string
    previous_secret: string | null
    previous_secret_expires_at: string | null
  },
  now: Date,
): string[] {
  const { secret, previous_secret: previous, previous_secret_expires_at: until } = endpoint
  return previous && until && Date.parse(until) > now.getTime() ? [secret, previous] : [secret]
}
