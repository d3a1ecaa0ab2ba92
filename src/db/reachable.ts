import { setTimeout as sleep } from 'node:timers/promises'
import { isDatabaseUnavailable } from './errors.js'

export interface WaitOptions {
  /** One line per failed attempt. */
  log: (details: { attempt: number; retry_in_ms: number; err: unknown }, message: string) => void
  firstDelayMs?: number
  maxDelayMs?: number
}

/**
 * Runs `start` (a process's first use of its database: the migration) until the database answers:
 * `amparo serve` or `amparo worker` started during an outage, or before their database, wait for
 * it instead of exiting. The delay doubles up to `maxDelayMs`; anything but an unreachable database
 * (a failed migration, a refused password) is thrown at once.
 */
export async function whenReachable<T>(
  start: () => Promise<T>,
  { log, firstDelayMs = 500, maxDelayMs = 10_000 }: WaitOptions,
): Promise<T> {
  let delay = firstDelayMs
  for (let attempt = 1; ; attempt++) {
    try {
      return await start()
    } catch (error) {
      const cause = (error as { cause?: unknown } | null)?.cause
      if (!isDatabaseUnavailable(error) && !isDatabaseUnavailable(cause)) throw error
      log({ attempt, retry_in_ms: delay, err: error }, 'database unreachable; waiting for it')
      await sleep(delay)
      delay = Math.min(delay * 2, maxDelayMs)
    }
  }
}
