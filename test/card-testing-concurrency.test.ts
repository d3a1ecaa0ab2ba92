import { describe, expect, it } from 'vitest'
import { sandboxWith } from './helpers/gateways.js'
import {
  appWith,
  CARDS,
  card,
  contract,
  ctx,
  ledger,
  party,
  pay,
  useSubscriptionPaymentsWorld,
} from './helpers/world/subscription-payments.js'
import { bearer } from './helpers/world.js'

// The card-testing limit (README, "Going live: card payments through Stripe") holds when a tester
// sends many cards at once: each attempt is counted, under the contract's lock, before the gateway
// is called, so 20 simultaneous declined attempts on one contract reach the gateway 5 times.

useSubscriptionPaymentsWorld()

const LIMIT = 5 // AMPARO_CARD_DECLINES_PER_CONTRACT's default
const ATTEMPTS = 20

function countingApp() {
  const calls = { saveCard: 0, chargeCard: 0 }
  const gateway = sandboxWith({})
  const counted = sandboxWith({
    saveCard: (...args) => {
      calls.saveCard += 1
      return gateway.saveCard(...args)
    },
    chargeCard: (charge) => {
      calls.chargeCard += 1
      return gateway.chargeCard(charge)
    },
  })
  return { calls, app: appWith(counted) }
}

type Answer = { statusCode: number; headers: Record<string, unknown>; json(): unknown }

function expectLimited(answers: Answer[]) {
  for (const r of answers.filter((a) => a.statusCode === 429)) {
    expect(r.json()).toMatchObject({ code: 'rate_limited' })
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0)
  }
}

describe('the card-testing limit under simultaneous attempts', { timeout: 120_000 }, () => {
  it('20 card updates with a declined card at once: 5 reach the gateway, the rest answer 429', async () => {
    const { calls, app: appReady } = countingApp()
    const app = await appReady
    const p = await party('own')
    const s = await contract(p, app)
    expect((await pay(p, s.id, card(CARDS.visa), app)).statusCode).toBe(200)
    calls.saveCard = 0

    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, () =>
        app.inject({
          method: 'PUT',
          url: `/subscriptions/${s.id}/card`,
          headers: bearer(p.token),
          payload: card(CARDS.declined),
        }),
      ),
    )
    const statuses = answers.map((r) => r.statusCode).sort()
    expect(calls.saveCard, String(statuses)).toBeLessThanOrEqual(LIMIT)
    expect(statuses.filter((s) => s === 402)).toHaveLength(calls.saveCard)
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(ATTEMPTS - LIMIT)
    expect(new Set(statuses)).toEqual(new Set([402, 429]))
    expectLimited(answers)
    const declinedChecks = await ctx.db
      .selectFrom('card_checks')
      .select('id')
      .where('subscription_id', '=', s.id)
      .where('outcome', '=', 'declined')
      .execute()
    expect(declinedChecks).toHaveLength(calls.saveCard)
  })

  // A first payment also holds its installment while charging: a simultaneous one answers 409, and
  // its attempt, which never reached the gateway, no longer counts.
  it('20 first payments with a declined card at once: at most 5 charges, the rest 429 or 409', async () => {
    const { calls, app: appReady } = countingApp()
    const app = await appReady
    const p = await party('own')
    const s = await contract(p, app)

    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS }, () => pay(p, s.id, card(CARDS.declined), app)),
    )
    const statuses = answers.map((r) => r.statusCode)
    expect(calls.chargeCard, String(statuses)).toBeLessThanOrEqual(LIMIT)
    expect(statuses).toContain(429)
    expect(statuses.filter((s) => ![402, 409, 429].includes(s))).toEqual([])
    expect(statuses.filter((s) => s === 402)).toHaveLength(calls.chargeCard)
    expectLimited(answers)
    const declines = (await ledger(s.id)).filter((row) => row.outcome === 'declined')
    expect(declines.length).toBe(calls.chargeCard)
  })
})
