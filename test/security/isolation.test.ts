import { describe, expect, it } from 'vitest'
import type { GatewayMode } from '../../src/db/tables/partner.js'
import { expectedError, requestIdOf } from '../helpers/errors.js'
import {
  annualCard,
  type Method,
  type Party,
  snapshot,
  subscriptionCard,
  useSecurityWorld,
} from '../helpers/world/security.js'

// OWASP API1:2023 (broken object-level authorization): partner B's token on partner A's objects.

const w = useSecurityWorld()

const GHOST_ID = 2_000_000_000
/** The party with every id replaced by one that exists nowhere: the answer must be the same. */
function ghost(p: Party): Party {
  return {
    ...p,
    subscriptionPlanId: GHOST_ID,
    exclusive: { brandId: GHOST_ID, modelId: GHOST_ID },
    customer: { id: GHOST_ID, document: '11144477735' },
    storeId: GHOST_ID,
    matrixStoreId: GHOST_ID,
    subscription: { id: GHOST_ID, installmentIds: [GHOST_ID] },
    unpaidAnnualId: GHOST_ID,
    annual: { id: GHOST_ID, protocol: 'CAN-AAAAAAAAAA' },
  }
}
const formatted = (d: string) => `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`

interface PathCase {
  name: string
  gateway: GatewayMode
  method: Method
  /** `o` owns the object, `v` is the caller. */
  url: (o: Party, v: Party) => string
  payload?: unknown
}
const get = (name: string, url: PathCase['url']): PathCase => ({
  name,
  gateway: 'external',
  method: 'GET',
  url,
})

// In the order in which the owner's own calls (the control) succeed one after another.
const PATH_CASES: PathCase[] = [
  get('GET /subscriptions/{id}', (o) => `/subscriptions/${o.subscription.id}`),
  get('GET /subscriptions/{id}/installments', (o) => `/subscriptions/${o.subscription.id}/installments`),
  get('GET /annual-plans/{id}', (o) => `/annual-plans/${o.annual.id}`),
  get('GET /shopkeepers/{id} (branch)', (o) => `/shopkeepers/${o.storeId}`),
  get('GET /shopkeepers/{id} (matrix)', (o) => `/shopkeepers/${o.matrixStoreId}`),
  get('GET /customers/{document}', (o) => `/customers/${o.customer.document}`),
  get('GET /customers/{formatted document}', (o) => `/customers/${formatted(o.customer.document)}`),
  get('GET /plans/{id}/quotation', (o) => `/plans/${o.subscriptionPlanId}/quotation?model_id=${o.modelId}`),
  get('GET /models/{id}', (o) => `/models/${o.exclusive.modelId}`),
  get('GET /brands/{id}', (o) => `/brands/${o.exclusive.brandId}?include=models,modelCount`),
  {
    name: 'notify-payment of A’s installment on A’s subscription',
    gateway: 'external',
    method: 'POST',
    url: (o) =>
      `/subscriptions/${o.subscription.id}/installments/${o.subscription.installmentIds[0]}/notify-payment`,
  },
  {
    name: 'notify-payment of A’s installment through B’s own subscription',
    gateway: 'external',
    method: 'POST',
    url: (o, v) =>
      `/subscriptions/${v.subscription.id}/installments/${o.subscription.installmentIds[0]}/notify-payment`,
  },
  {
    name: 'card payment of A’s subscription',
    gateway: 'own',
    method: 'POST',
    url: (o) => `/subscriptions/${o.subscription.id}/payment`,
    payload: subscriptionCard,
  },
  {
    name: 'notify-payment of A’s annual plan',
    gateway: 'external',
    method: 'POST',
    url: (o) => `/annual-plans/${o.unpaidAnnualId}/notify-payment`,
  },
  {
    name: 'card payment of A’s annual plan',
    gateway: 'own',
    method: 'POST',
    url: (o) => `/annual-plans/${o.unpaidAnnualId}/payment`,
    payload: annualCard,
  },
  {
    name: 'cancellation request (PUT) of A’s annual plan without one',
    gateway: 'external',
    method: 'PUT',
    url: (o) => `/annual-plans/${o.unpaidAnnualId}/cancellation`,
    payload: { reason: 'B' },
  },
  {
    name: 'cancellation request (PUT) of A’s annual plan with an open one',
    gateway: 'own',
    method: 'PUT',
    url: (o) => `/annual-plans/${o.annual.id}/cancellation`,
    payload: { reason: 'B' },
  },
  {
    name: 'cancellation confirmation of A’s annual plan with A’s protocol',
    gateway: 'external',
    method: 'POST',
    url: (o) => `/annual-plans/${o.annual.id}/cancellation/${o.annual.protocol}`,
  },
  {
    name: 'cancellation confirmation of B’s own annual plan with A’s protocol',
    gateway: 'own',
    method: 'POST',
    url: (o, v) => `/annual-plans/${v.annual.id}/cancellation/${o.annual.protocol}`,
  },
  ...(['external', 'own'] as const).map(
    (gateway): PathCase => ({
      name: `cancellation of A’s subscription (${gateway})`,
      gateway,
      method: 'POST',
      url: (o) => `/subscriptions/${o.subscription.id}/cancellation`,
      payload: { reason: 'B' },
    }),
  ),
]

describe('B’s token on A’s objects named in the path', () => {
  it.each(PATH_CASES.map((c) => [c.name, c] as const))(
    '%s → 404 like an unknown id, nothing changes',
    async (_n, c) => {
      const owner = w.a[c.gateway]
      const caller = w.b[c.gateway]
      const before = await snapshot(w.db)
      const charges = w.charges()
      const response = await w.call(c.method, c.url(owner, caller), caller.token, c.payload)
      expect(response.statusCode, response.body).toBe(404)
      expect(response.json()).toEqual(expectedError(response, 'not_found', { message: expect.any(String) }))
      const unknown = await w.call(c.method, c.url(ghost(owner), caller), caller.token, c.payload)
      expect(unknown.statusCode).toBe(404)
      // The same answer but for the request id.
      expect(response.json()).toEqual({ ...unknown.json(), request_id: requestIdOf(response) })
      expect(await snapshot(w.db)).toEqual(before)
      expect(w.charges()).toBe(charges)
    },
  )

  it('the same calls with A’s own token succeed (the ids were real)', async () => {
    for (const c of PATH_CASES) {
      const owner = w.a[c.gateway]
      const response = await w.call(c.method, c.url(owner, owner), owner.token, c.payload)
      expect(response.statusCode, `${c.name}: ${response.body}`).toBeLessThan(300)
    }
  })
})
