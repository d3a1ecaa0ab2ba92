import { setTimeout as sleep } from 'node:timers/promises'
import { beforeAll, describe, expect, it } from 'vitest'
import { subscriptionCard } from './helpers/bodies.js'
import { useTestApp } from './helpers/test-app.js'
import { answer, bearer, galaxyOf, type Seller, seller, subscribe } from './helpers/world.js'

// The sandbox clock on a listening server, as `npm start` serves it: a long advance of one partner's
// clock leaves the process to everyone else (on SQLite the driver answers synchronously), and a
// second advance of the same clock meanwhile gets 409 from the claim held in the database.

const DAY = 86_400
const PAID = 60
/** The longest an advance holds its clock without renewing it (docs/decisions.md). */
const CLAIM_SECONDS = 30

let base = ''
let advancing: Seller
let other: Seller
let otherSubscription = 0

const ctx = useTestApp()
beforeAll(async () => {
  const modelId = await galaxyOf(ctx)
  advancing = await seller(ctx, 'own')
  other = await seller(ctx, 'own')
  for (let i = 0; i < PAID; i++) {
    const id = await subscribe(ctx, advancing, modelId)
    await answer(ctx, advancing, 'POST', `/subscriptions/${id}/payment`, subscriptionCard)
  }
  otherSubscription = await subscribe(ctx, other, modelId)
  base = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
}, 120_000)

const request = async (s: Seller | null, method: 'GET' | 'POST', path: string, body?: object) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(s && bearer(s.token)),
      ...(body && { 'content-type': 'application/json' }),
    },
    body: body && JSON.stringify(body),
  })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

const claimOf = async (partnerId: number) =>
  (
    await ctx.db
      .selectFrom('partners')
      .select(['clock_advancing_until', 'clock_offset_seconds'])
      .where('id', '=', partnerId)
      .executeTakeFirstOrThrow()
  ).clock_advancing_until

describe('a 400-day advance of a partner with paid subscriptions', () => {
  it('serves other requests while it runs, refuses a second advance, and renews a short claim', async () => {
    let finished = false
    const advance = request(advancing, 'POST', '/sandbox/clock/advance', { days: 400 }).finally(() => {
      finished = true
    })
    // What answered before the advance did: the process is free between its statements.
    const whileRunning = { other: 0, health: 0, refused: 0 }
    const claims = new Set<string>()
    let moved = 0
    while (!finished) {
      const [read, health] = await Promise.all([
        request(other, 'GET', `/subscriptions/${otherSubscription}`),
        request(null, 'GET', '/health'),
      ])
      expect(read.status).toBe(200)
      expect(health.status).toBe(200)
      if (finished) break
      whileRunning.other += 1
      whileRunning.health += 1
      const claim = await claimOf(advancing.partnerId)
      if (claim) {
        // Never more than CLAIM_SECONDS ahead: a killed advance frees the clock within that.
        expect(Date.parse(claim)).toBeLessThanOrEqual(Date.now() + CLAIM_SECONDS * 1000)
        claims.add(claim)
      }
      if (whileRunning.refused === 0) {
        moved = (await request(advancing, 'GET', '/sandbox/clock')).json.advanced_by_seconds as number
        if (moved > 0) {
          const second = await request(advancing, 'POST', '/sandbox/clock/advance', { days: 1 })
          if (finished) break
          expect(second.status).toBe(409)
          expect(second.json.code).toBe('clock_advancing')
          whileRunning.refused += 1
        }
      }
      await sleep(10)
    }
    const done = await advance
    expect(done.status).toBe(200)
    expect(done.json).toMatchObject({
      advanced_by_seconds: 400 * DAY,
      jobs: { days: 400, recurrence: { charged: PAID * 11, errors: 0 } },
    })
    expect(whileRunning.other).toBeGreaterThanOrEqual(5)
    expect(whileRunning.refused).toBe(1)
    expect(moved).toBeGreaterThan(0)
    expect(moved).toBeLessThan(400 * DAY)
    // Renewed as the advance went, then released: the next advance needs no wait.
    expect(claims.size).toBeGreaterThanOrEqual(2)
    expect(await claimOf(advancing.partnerId)).toBeNull()
    expect((await request(advancing, 'POST', '/sandbox/clock/advance', { hours: 1 })).status).toBe(200)
  }, 180_000)
})
