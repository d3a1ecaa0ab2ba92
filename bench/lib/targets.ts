import type { ScenarioId } from './load.js'

// Issue 8's targets, in one place for `npm run bench` (which checks them) and bench/ceiling.ts
// (which measures whether any server could meet them).

/** Throughput ratios to the bare baseline, and whether the p99 limits apply, per database. */
export const TARGETS = {
  sqlite: { ratio: { a: 0.5, b: 0.35, c: 0.5, d: 0.2 } as Partial<Record<ScenarioId, number>>, p99: true },
  postgres: { ratio: { a: 0.3, d: 0.1 } as Partial<Record<ScenarioId, number>>, p99: false },
}
export const P99 = { read: 25, write: 60 }
export const MAX_RSS_MB = 200
export const MAX_STARTUP_MS = 1500
