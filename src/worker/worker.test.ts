import { describe, expect, it, vi } from 'vitest'
import type { Db } from '../db/database.js'
import type { JobLog } from './job.js'
import { runWorker, type WorkerDeps, type WorkerRun } from './worker.js'

const idle: WorkerRun = {
  reconciliation: { recorded: 0, errors: 0 },
  recurrence: { charged: 0, declined: 0, refused: 0, canceled: 0, errors: 0 },
  refunds: { refunded: 0, retried: 0, failed: 0, errors: 0 },
  expiry: { canceled: 0 },
  subscription_end: { expired: 0 },
  coverage: { protected: 0, expired: 0 },
  idempotency: { purged: 0 },
  events: { purged: 0 },
  deliveries: { purged: 0 },
}

function spyLog(): JobLog & { lines: [string, string][] } {
  const lines: [string, string][] = []
  const at = (level: string) => (_details: object, message: string) => void lines.push([level, message])
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

const deps = (log: JobLog): WorkerDeps => ({
  db: {} as Db,
  gateway: null,
  clock: { now: () => new Date() },
  timeZone: 'UTC',
  log,
})

describe('runWorker', () => {
  it('runs a round per interval and stops on abort after finishing the round in progress', async () => {
    const controller = new AbortController()
    let rounds = 0
    let finished = 0
    const runOnce = vi.fn(async (d: WorkerDeps) => {
      rounds += 1
      expect(d.signal).toBe(controller.signal)
      if (rounds === 3) controller.abort()
      await new Promise((resolve) => setTimeout(resolve, 5))
      finished += 1
      return idle
    })
    await runWorker(deps(spyLog()), { intervalMs: 1, signal: controller.signal, runOnce })
    expect(rounds).toBe(3)
    expect(finished).toBe(3)
  })

  it('does not wait out the interval once aborted', async () => {
    const controller = new AbortController()
    const started = Date.now()
    const loop = runWorker(deps(spyLog()), {
      intervalMs: 60_000,
      signal: controller.signal,
      runOnce: async () => idle,
    })
    setTimeout(() => controller.abort(), 20)
    await loop
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('logs a failed round and carries on', async () => {
    const controller = new AbortController()
    const log = spyLog()
    let rounds = 0
    const runOnce = async (): Promise<WorkerRun> => {
      rounds += 1
      if (rounds === 1) throw new Error('database unreachable')
      controller.abort()
      return { ...idle, expiry: { canceled: 2 } }
    }
    await runWorker(deps(log), { intervalMs: 1, signal: controller.signal, runOnce })
    expect(rounds).toBe(2)
    expect(log.lines).toEqual([
      ['error', 'worker round failed'],
      ['info', 'worker round'],
    ])
  })
})
