import { describe, expect, it } from 'vitest'
import type { PageBody } from './helpers/bodies.js'
import {
  type ClaimBody,
  call,
  daysAfter,
  expectRefusal,
  local,
  ok,
  openClaim,
  paidAnnualPlan,
  paidSubscription,
  seller,
  theft,
  useClaimsWorld,
} from './helpers/claims-world.js'

useClaimsWorld()

describe('GET /claims', () => {
  it('lists the partner’s claims newest first in a Laravel page, with the four filters', async () => {
    const s = await seller()
    const other = await seller()
    const sub = await paidSubscription(s)
    const annual = await paidAnnualPlan(s)
    const first = await openClaim(s, theft(sub))
    await ok(s, 'POST', `/claims/${first.id}/withdraw`)
    const second = await openClaim(s, {
      annual_plan_id: annual,
      type: 'accidental_damage',
      occurred_at: local(daysAfter(-1)),
      description: 'Tela quebrada após queda.',
    })
    await openClaim(other, theft(await paidSubscription(other)))

    const page = await ok<PageBody<ClaimBody>>(s, 'GET', '/claims?per_page=1')
    expect(page.data.map((c) => c.id)).toEqual([second.id])
    expect(page.meta).toMatchObject({ current_page: 1, per_page: 1, total: 2, last_page: 2, from: 1, to: 1 })
    expect(page.links.next).toContain('page=2')

    const ids = async (query: string) =>
      (await ok<PageBody<ClaimBody>>(s, 'GET', `/claims?${query}`)).data.map((c) => c.id)
    expect(await ids('')).toEqual([second.id, first.id])
    expect(await ids('filter[status]=withdrawn')).toEqual([first.id])
    expect(await ids(`filter[subscription_id]=${sub}`)).toEqual([first.id])
    expect(await ids(`filter[annual_plan_id]=${annual}`)).toEqual([second.id])
    expect(await ids(`filter[customer_document]=${s.customer.document}`)).toEqual([second.id, first.id])
    expect(await ids(`filter[customer_document]=${other.customer.document}`)).toEqual([])
  })

  it('validates its query', async () => {
    const s = await seller()
    for (const query of ['per_page=1000', 'page=0', 'filter[status]=open', 'filter[subscription_id]=abc']) {
      const response = await call(s, 'GET', `/claims?${query}`)
      expect(response.statusCode, query).toBe(422)
    }
  })
})

describe('GET /claims/{id}', () => {
  it('answers 404 for another partner’s claim and for an unknown one', async () => {
    const s = await seller()
    const other = await seller()
    const claim = await openClaim(s, theft(await paidSubscription(s)))
    expectRefusal(await call(other, 'GET', `/claims/${claim.id}`), 'not_found', {})
    expectRefusal(await call(s, 'GET', '/claims/999999'), 'not_found', {})
  })
})
