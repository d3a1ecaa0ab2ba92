import { describe, expect, it } from 'vitest'
import {
  approvedEarlier,
  type ClaimBody,
  call,
  daysAfter,
  expectRefusal,
  ok,
  openClaim,
  paidSubscription,
  seller,
  theft,
  useClaimsWorld,
} from './helpers/claims-world.js'

useClaimsWorld()

describe('POST /claims/{id}/withdraw', () => {
  it('withdraws an open claim: 200 with the claim, claim.withdrawn, and the contract may claim again', async () => {
    const s = await seller()
    const sub = await paidSubscription(s)
    const claim = await openClaim(s, theft(sub))
    const withdrawn = await ok<ClaimBody>(s, 'POST', `/claims/${claim.id}/withdraw`)
    expect(withdrawn).toEqual({ ...claim, status: 'withdrawn', status_label: 'Desistência' })
    const events = await ok<{ data: { type: string; data: { object: unknown } }[] }>(
      s,
      'GET',
      '/events?type=claim.withdrawn',
    )
    expect(events.data.map((e) => e.data.object)).toEqual([withdrawn])
    await openClaim(s, theft(sub))
  })

  it('refuses a claim no longer open with invalid_state, and another partner’s with 404', async () => {
    const s = await seller()
    const claim = await openClaim(s, theft(await paidSubscription(s)))
    await ok(s, 'POST', `/claims/${claim.id}/withdraw`)
    const again = await call(s, 'POST', `/claims/${claim.id}/withdraw`)
    expectRefusal(again, 'invalid_state', {
      errors: {
        status: ['The claim is withdrawn: only a claim awaiting documents or under review can be withdrawn.'],
      },
    })
    const decided = await openClaim(s, theft(await paidSubscription(s)))
    await approvedEarlier(decided.id, daysAfter(0))
    expect((await call(s, 'POST', `/claims/${decided.id}/withdraw`)).statusCode).toBe(422)
    const other = await seller()
    const open = await openClaim(s, theft(await paidSubscription(s)))
    expectRefusal(await call(other, 'POST', `/claims/${open.id}/withdraw`), 'not_found', {})
  })

  it('withdraws once when two requests race', async () => {
    const s = await seller()
    const claim = await openClaim(s, theft(await paidSubscription(s)))
    const responses = await Promise.all([1, 2].map(() => call(s, 'POST', `/claims/${claim.id}/withdraw`)))
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 422])
    const events = await ok<{ data: unknown[] }>(s, 'GET', '/events?type=claim.withdrawn')
    expect(events.data).toHaveLength(1)
  })
})
