import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Clock } from '../src/shared/clock.js'
import { subscriptionCard } from './helpers/bodies.js'
import { amparoProcess } from './helpers/cli.js'
import { buildCheckedApp, useTestApp } from './helpers/test-app.js'
import { answer, bearer, galaxyOf, type Seller, seller, subscribe } from './helpers/world.js'

// Sandbox clock: an `amparo serve` killed (-9) in the middle of a clock advance leaves the clock
// where its last full day put it, held by a claim that runs out at most 30 s after its last
// renewal (docs/decisions.md); then another advance carries on. A real kill, on either database.

const root = fileURLToPath(new URL('..', import.meta.url))
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

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const address = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  if (!address || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** `amparo serve` on the test database, once its /health answers (generous deadline: a busy machine). */
async function serve(): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort()
  const child = spawn(process.execPath, amparoProcess('serve', '--no-worker'), {
    cwd: root,
    env: { ...process.env, ...ctx.env, HOST: '127.0.0.1', PORT: String(port), AMPARO_ENV: 'test' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let output = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  const base = `http://127.0.0.1:${port}`
  for (const deadline = Date.now() + 120_000; ; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`amparo serve exited:\n${output}`)
    if (Date.now() > deadline) throw new Error(`amparo serve did not start:\n${output}`)
    if (
      await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { child, base }
  }
}

const partnerRow = () =>
  ctx.db
    .selectFrom('partners')
    .select(['clock_advancing_until', 'clock_offset_seconds'])
    .where('id', '=', s.partnerId)
    .executeTakeFirstOrThrow()

/** An advance through an in-process app whose real time is `at`. */
async function advanceAt(at: Date, days: number) {
  const clock: Clock = { now: () => at }
  const app = await buildCheckedApp({ config: ctx.config, db: ctx.db, clock, logger: false })
  try {
    return await app.inject({
      method: 'POST',
      url: '/sandbox/clock/advance',
      headers: bearer(s.token),
      payload: { days },
    })
  } finally {
    await ctx.app.close()
  }
}

describe('an advance whose process is killed mid-way', () => {
  it('frees the clock within the claim time, at the last day fully processed', async () => {
    const { child, base } = await serve()
    const exited = new Promise((resolve) => child.once('exit', resolve))
    try {
      fetch(`${base}/sandbox/clock/advance`, {
        method: 'POST',
        headers: { ...bearer(s.token), 'content-type': 'application/json' },
        body: JSON.stringify({ days: 400 }),
      }).catch(() => undefined)
      // Killed once the advance has stored a few days (its own clock reading says so).
      for (const deadline = Date.now() + 120_000; ; await sleep(20)) {
        const clock = await fetch(`${base}/sandbox/clock`, { headers: bearer(s.token) })
        if (((await clock.json()) as { advanced_by_seconds: number }).advanced_by_seconds >= 3 * DAY) break
        if (Date.now() > deadline) throw new Error('the advance did not progress')
      }
    } finally {
      child.kill('SIGKILL')
      await exited
    }
    const killedAt = Date.now()
    const row = await partnerRow()
    const until = Date.parse(row.clock_advancing_until ?? '')
    expect(until).toBeLessThanOrEqual(killedAt + CLAIM_SECONDS * 1000)
    expect(row.clock_offset_seconds % DAY).toBe(0)
    expect(row.clock_offset_seconds).toBeGreaterThanOrEqual(3 * DAY)
    expect(row.clock_offset_seconds).toBeLessThan(400 * DAY)

    // Until the claim runs out the clock stays held; then an advance carries on from the last day.
    const held = await advanceAt(new Date(until - 1000), 1)
    expect(held.statusCode, held.body).toBe(409)
    expect(held.json().code).toBe('clock_advancing')
    const resumed = await advanceAt(new Date(until + 1000), 1)
    expect(resumed.statusCode, resumed.body).toBe(200)
    expect(resumed.json().advanced_by_seconds).toBe(row.clock_offset_seconds + DAY)
    expect((await partnerRow()).clock_advancing_until).toBeNull()
  }, 300_000)
})
