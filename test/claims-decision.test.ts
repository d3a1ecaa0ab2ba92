import { beforeAll, describe, expect, it } from 'vitest'
import {
  type ClaimParty,
  claimOf,
  claimParty,
  decide,
  eventsOf,
  paidSubscription,
} from './helpers/claim-decisions-world.js'
import { expectedError } from './helpers/errors.js'
import { useTestApp } from './helpers/test-app.js'
import { seedCatalog } from './helpers/world.js'

// The decision of a claim through the sandbox (POST /sandbox/claims/{id}/decision), under the
// operator's rules (README, Claims: decision and settlement). Galaxy S25: LMI R$ 6,499.00, franchise
// 15 % = R$ 974.85.

let p: ClaimParty
let other: ClaimParty

const ctx = useTestApp()
beforeAll(async () => {
  const model = (await seedCatalog(ctx.db)).model('Galaxy S25').id
  p = await claimParty(ctx.app, ctx.db, model)
  other = await claimParty(ctx.app, ctx.db, model)
})

const underReview = async (party = p) =>
  claimOf(ctx.db, { subscriptionId: await paidSubscription(ctx.app, party) })
const statusOf = async (id: number) =>
  (await ctx.db.selectFrom('claims').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status

describe('approval', () => {
  it.each([
    [1500.1, 525.25],
    [974.85, 0],
    [974.86, 0.01],
    [100, 0],
    [6499, 5524.15],
  ])('approved %s → payable %s', async (approved, payable) => {
    const id = await underReview()
    const response = await decide(ctx.app, p.token, id, {
      outcome: 'approved',
      settlement_method: 'repair',
      approved_amount: approved,
    })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toMatchObject({
      id,
      status: 'approved',
      status_label: 'Aprovado',
      franchise: 974.85,
      decision: {
        outcome: 'approved',
        settlement_method: 'repair',
        approved_amount: approved,
        payable_amount: payable,
        reason_code: null,
        note: null,
      },
      settlement: null,
    })
    expect(await eventsOf(ctx.db, 'claim.approved', id)).toHaveLength(1)
  })

  it('refuses missing or wrong fields under each, changing nothing', async () => {
    const id = await underReview()
    const missing = await decide(ctx.app, p.token, id, { outcome: 'approved' })
    expect(missing.statusCode).toBe(422)
    expect(Object.keys(missing.json().errors).sort()).toEqual(['approved_amount', 'settlement_method'])
    for (const approved_amount of [0, 6499.01, 10.005]) {
      const response = await decide(ctx.app, p.token, id, {
        outcome: 'approved',
        settlement_method: 'repair',
        approved_amount,
      })
      expect(response.statusCode, String(approved_amount)).toBe(422)
      expect(Object.keys(response.json().errors)).toEqual(['approved_amount'])
    }
    expect(await statusOf(id)).toBe('under_review')
    expect(await eventsOf(ctx.db, 'claim.approved', id)).toHaveLength(0)
  })

  it('approves only from under_review: 422 invalid_state under status', async () => {
    const id = await claimOf(
      ctx.db,
      { subscriptionId: await paidSubscription(ctx.app, p) },
      'documents_pending',
    )
    const response = await decide(ctx.app, p.token, id, {
      outcome: 'approved',
      settlement_method: 'repair',
      approved_amount: 10,
    })
    expect(response.statusCode).toBe(422)
    expect(response.json()).toEqual(
      expectedError(response, 'invalid_state', {
        message:
          'The claim is documents_pending (Aguardando documentos): only a claim under review can be approved.',
        errors: {
          status: [
            'The claim is documents_pending (Aguardando documentos): only a claim under review can be approved.',
          ],
        },
      }),
    )
  })
})

describe('denial', () => {
  it.each(['documents_pending', 'under_review'] as const)(
    'denies from %s with a reason and a note',
    async (status) => {
      const id = await claimOf(ctx.db, { subscriptionId: await paidSubscription(ctx.app, p) }, status)
      const response = await decide(ctx.app, p.token, id, {
        outcome: 'denied',
        reason_code: 'late_notice',
        note: 'Aviso feito fora do prazo.',
      })
      expect(response.statusCode, response.body).toBe(200)
      expect(response.json()).toMatchObject({
        status: 'denied',
        status_label: 'Negado',
        decision: {
          outcome: 'denied',
          reason_code: 'late_notice',
          note: 'Aviso feito fora do prazo.',
          payable_amount: null,
        },
      })
      expect(await eventsOf(ctx.db, 'claim.denied', id)).toHaveLength(1)
    },
  )

  it('needs a reason code and a note', async () => {
    const id = await underReview()
    const response = await decide(ctx.app, p.token, id, { outcome: 'denied', note: '   ' })
    expect(response.statusCode).toBe(422)
    expect(Object.keys(response.json().errors).sort()).toEqual(['note', 'reason_code'])
    const unknown = await decide(ctx.app, p.token, id, {
      outcome: 'denied',
      reason_code: 'changed_mind',
      note: 'x',
    })
    expect(unknown.statusCode).toBe(422)
    expect(Object.keys(unknown.json().errors)).toEqual(['reason_code'])
    expect(await statusOf(id)).toBe('under_review')
  })

  it('refuses a claim already decided', async () => {
    const id = await underReview()
    const denial = { outcome: 'denied', reason_code: 'other', note: 'Negado.' }
    expect((await decide(ctx.app, p.token, id, denial)).statusCode).toBe(200)
    const again = await decide(ctx.app, p.token, id, denial)
    expect(again.statusCode).toBe(422)
    expect(again.json().code).toBe('invalid_state')
    expect(await eventsOf(ctx.db, 'claim.denied', id)).toHaveLength(1)
  })
})

describe('whose claim', () => {
  it("answers 404 for another partner's claim or none, changing nothing", async () => {
    const id = await underReview(other)
    const approval = { outcome: 'approved', settlement_method: 'repair', approved_amount: 10 }
    for (const claim of [id, 2_000_000]) {
      const response = await decide(ctx.app, p.token, claim, approval)
      expect(response.statusCode).toBe(404)
      expect(response.json().code).toBe('not_found')
    }
    expect(await statusOf(id)).toBe('under_review')
  })
})

describe('two decisions at once', () => {
  it('one wins, the other answers 422 invalid_state; one event', async () => {
    for (let round = 0; round < 3; round++) {
      const id = await underReview()
      const [a, b] = await Promise.all([
        decide(ctx.app, p.token, id, {
          outcome: 'approved',
          settlement_method: 'indemnity',
          approved_amount: 5000,
        }),
        decide(ctx.app, p.token, id, {
          outcome: 'denied',
          reason_code: 'fraud_suspected',
          note: 'Indícios de fraude.',
        }),
      ])
      const statuses = [a.statusCode, b.statusCode].sort()
      expect(statuses, `${a.body} ${b.body}`).toEqual([200, 422])
      const loser = a.statusCode === 422 ? a : b
      expect(loser.json().code).toBe('invalid_state')
      const winner = a.statusCode === 200 ? 'approved' : 'denied'
      expect(await statusOf(id)).toBe(winner)
      const events = [
        ...(await eventsOf(ctx.db, 'claim.approved', id)),
        ...(await eventsOf(ctx.db, 'claim.denied', id)),
      ]
      expect(events.map((e) => e.type)).toEqual([`claim.${winner}`])
    }
  })
})
