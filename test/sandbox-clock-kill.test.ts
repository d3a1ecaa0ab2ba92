import { setTimeout as sleep } from 'node:timers/promises'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Clock } from '../src/shared/time.js'
import { subscriptionCard } from './helpers/bodies.js'
import { type Served, serve } from './helpers/serve.js'
import { buildCheckedApp, useTestApp } from './helpers/test-app.js'
import { answer, bearer, galaxyOf, type Seller, seller, subscribe } from './helpers/world.js'

// Sandbox clock: an `amparo serve` killed (-9) in the middle of a clock advance leaves the clock
// where its last full day put it, held by a claim that runs out at most 30 s after its last
// renewal (docs/decisions.md); then another advance carries on, and the same advance retried with
// its Idempotency-Key finishes the one it started. A real kill, on either database.

const DAY = 86_400
const PAID = 40
/** The longest a killed advance may keep its partner's clock held. */
const CLAIM_SECONDS = 30

const ctx = useTestApp({ onDisk: true })
let s: Seller

beforeAll(async () => {
  const modelId = await galaxyOf(ctx)
  s = await seller(ctx, 'own')
  for (let i = 0; i < PAID; i++) {
    const id = await subscribe(ctx, s, modelId)
    await answer(ctx, s, 'POST', `/subscriptions/${id}/payment`, subscriptionCard)
  }
}, 120_000)

const partnerRow = () =>
  ctx.db
    .selectFrom('partners')
    .select(['clock_advancing_until', 'clock_offset_seconds'])
    .where('id', '=', s.partnerId)
    .executeTakeFirstOrThrow()

/** An advance through an in-process app whose real time is `at`, with `key` if given. */
async function advanceAt(at: Date, days: number, key?: string) {
  const clock: Clock = { now: () => at }
  const app = await buildCheckedApp({ config: ctx.config, db: ctx.db, clock, logger: false })
  try {
    return await app.inject({
      method: 'POST',
      url: '/sandbox/clock/advance',
      headers: { ...bearer(s.token), ...(key && { 'idempotency-key': key }) },
      payload: { days },
    })
  } finally {
    await app.close()
  }
}

/** Starts an advance of `days` on a served process and kills it once 3 days are stored. */
async function killedMidAdvance(served: Served, days: number, key?: string) {
  const before = (await partnerRow()).clock_offset_seconds
  try {
    fetch(`${served.base}/sandbox/clock/advance`, {
      method: 'POST',
      headers: {
        ...bearer(s.token),
        'content-type': 'application/json',
        ...(key && { 'idempotency-key': key }),
      },
      body: JSON.stringify({ days }),
    }).catch(() => undefined)
    // Killed once the advance has stored a few days (its own clock reading says so).
    for (const deadline = Date.now() + 120_000; ; await sleep(20)) {
      const clock = await fetch(`${served.base}/sandbox/clock`, { headers: bearer(s.token) })
      const { advanced_by_seconds } = (await clock.json()) as { advanced_by_seconds: number }
      if (advanced_by_seconds >= before + 3 * DAY) break
      if (Date.now() > deadline) throw new Error('the advance did not progress')
    }
  } finally {
    await served.kill()
  }
  const killedAt = Date.now()
  const row = await partnerRow()
  const until = Date.parse(row.clock_advancing_until ?? '')
  expect(until).toBeLessThanOrEqual(killedAt + CLAIM_SECONDS * 1000)
  expect(row.clock_offset_seconds % DAY).toBe(0)
  expect(row.clock_offset_seconds).toBeGreaterThanOrEqual(before + 3 * DAY)
  expect(row.clock_offset_seconds).toBeLessThan(before + days * DAY)
  return { before, until, row }
}

describe('an advance whose process is killed mid-way', () => {
  it('frees the clock within the claim time, at the last day fully processed', async () => {
    const { until, row } = await killedMidAdvance(await serve(ctx.env), 400)

    // Until the claim runs out the clock stays held; then an advance carries on from the last day.
    const held = await advanceAt(new Date(until - 1000), 1)
    expect(held.statusCode, held.body).toBe(409)
    expect(held.json().code).toBe('clock_advancing')
    const resumed = await advanceAt(new Date(until + 1000), 1)
    expect(resumed.statusCode, resumed.body).toBe(200)
    expect(resumed.json().advanced_by_seconds).toBe(row.clock_offset_seconds + DAY)
    expect((await partnerRow()).clock_advancing_until).toBeNull()
  }, 300_000)

  it('retried with its Idempotency-Key, finishes the advance it started, never a second one', async () => {
    const key = `advance-${Date.now()}`
    const { before, until, row } = await killedMidAdvance(await serve(ctx.env), 31, key)

    // While the dead advance's hold lasts: 409 with the seconds it has left.
    const held = await advanceAt(new Date(until - 5000), 31, key)
    expect(held.statusCode, held.body).toBe(409)
    expect(held.json().code).toBe('clock_advancing')
    expect(Number(held.headers['retry-after'])).toBe(5)

    const finished = await advanceAt(new Date(until + 1000), 31, key)
    expect(finished.statusCode, finished.body).toBe(200)
    expect(finished.json().advanced_by_seconds).toBe(before + 31 * DAY)
    expect(finished.json().jobs.days).toBe((before + 31 * DAY - row.clock_offset_seconds) / DAY)
    expect((await partnerRow()).clock_offset_seconds).toBe(before + 31 * DAY)

    // Its answer is kept: the key does not move the clock again.
    const again = await advanceAt(new Date(until + 2000), 31, key)
    expect(again.statusCode, again.body).toBe(200)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect((await partnerRow()).clock_offset_seconds).toBe(before + 31 * DAY)
  }, 300_000)
})
