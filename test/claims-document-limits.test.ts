import { beforeAll, describe, expect, it } from 'vitest'
import { documentForm, insertTestClaim, png } from './helpers/claim-documents.js'
import { expectedError } from './helpers/errors.js'
import { useTestApp } from './helpers/test-app.js'
import {
  bearer,
  createCustomer,
  login,
  partnerWithToken,
  seedCatalog,
  seedPlan,
  TOTAL_12X,
} from './helpers/world.js'

// What claim documents may take (README, Claim documents): documents a contract's claims receive in
// 365 days, withdrawn claims' counted, and bytes a partner uploads in a day of the service's zone.

// 15:00 UTC is 12:00 in São Paulo: the local day ends in 12 hours.
const NOW = new Date('2026-11-21T15:00:00.000Z')
let now = NOW
const DAY = 86_400_000

const ctx = useTestApp({
  clock: { now: () => now },
  env: {
    AMPARO_CLAIM_DOCUMENTS_PER_CONTRACT_YEAR: '3',
    AMPARO_CLAIM_DOCUMENT_MIB_PER_PARTNER_DAY: '1',
  },
})

let catalog: Awaited<ReturnType<typeof seedCatalog>>
beforeAll(async () => {
  catalog = await seedCatalog(ctx.db)
})

/** A partner of its own with a subscription; its token and the subscription's claim-row fields. */
async function contract() {
  const { partner, token } = await partnerWithToken(ctx.app, ctx.db)
  const plan = await seedPlan(ctx.db, partner.id, TOTAL_12X)
  const customer = await createCustomer(ctx.app, token)
  const contracted = await ctx.app.inject({
    method: 'POST',
    url: '/subscriptions',
    headers: bearer(token),
    payload: { plan_id: plan.id, customer_id: customer.id, model_id: catalog.model('iPhone 16 Pro').id },
  })
  expect(contracted.statusCode, contracted.body).toBe(201)
  const subscription = await ctx.db
    .selectFrom('subscriptions')
    .select(['id', 'partner_id', 'plan_id', 'customer_id', 'model_id'])
    .where('id', '=', contracted.json().id)
    .executeTakeFirstOrThrow()
  return { partner, token, claim: () => insertTestClaim(ctx.db, subscription, 'robbery') }
}

const upload = (token: string, claimId: number, bytes: Buffer) => {
  const { payload, headers } = documentForm('other', bytes, 'doc.png')
  return ctx.app.inject({
    method: 'POST',
    url: `/claims/${claimId}/documents`,
    headers: { ...bearer(token), ...headers },
    payload,
  })
}

async function chunkRows() {
  const row = await ctx.db
    .selectFrom('claim_document_chunks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

describe('documents per contract in 365 days', () => {
  it('counts a withdrawn claim’s documents: reopening does not start the count again (422 under file)', async () => {
    const { partner, token, claim } = await contract()
    const first = await claim()
    for (const shade of [1, 2]) expect((await upload(token, first, png(shade))).statusCode).toBe(201)
    const withdrawn = await ctx.app.inject({
      method: 'POST',
      url: `/claims/${first}/withdraw`,
      headers: bearer(token),
    })
    expect(withdrawn.statusCode, withdrawn.body).toBe(200)
    const reopened = await claim()
    expect((await upload(token, reopened, png(3))).statusCode).toBe(201)
    const chunks = await chunkRows()
    const refused = await upload(token, reopened, png(4))
    const message =
      "The contract's claims hold at most 3 documents uploaded in 365 days, withdrawn claims' included."
    expect(refused.statusCode, refused.body).toBe(422)
    expect(refused.json()).toEqual(
      expectedError(refused, 'validation_failed', { message, errors: { file: [message] } }),
    )
    expect(await chunkRows()).toBe(chunks)
    // A year later the first ones no longer count.
    now = new Date(NOW.getTime() + 366 * DAY)
    try {
      expect((await upload(await login(ctx.app, partner), reopened, png(4))).statusCode).toBe(201)
    } finally {
      now = NOW
    }
  })
})

describe('bytes per partner a day', () => {
  it('answers 429 rate_limited past the quota, with Retry-After until the day ends in the service’s zone', async () => {
    const { partner, token, claim } = await contract()
    const file = Buffer.concat([png(), Buffer.alloc(600 * 1024, 1)])
    expect((await upload(token, await claim(), file)).statusCode).toBe(201)
    const chunks = await chunkRows()
    const refused = await upload(token, await claim(), file)
    expect(refused.statusCode, refused.body).toBe(429)
    expect(refused.headers['retry-after']).toBe(String(12 * 3600))
    expect(refused.json()).toEqual(
      expectedError(refused, 'rate_limited', {
        message:
          "This file would take the partner's claim documents past their daily quota: try again after Retry-After seconds, once the day ends.",
      }),
    )
    expect(await chunkRows()).toBe(chunks)
    // Another partner has its own quota; the next local day, this one has its own again.
    const other = await contract()
    expect((await upload(other.token, await other.claim(), file)).statusCode).toBe(201)
    now = new Date('2026-11-22T03:00:00.000Z')
    try {
      expect((await upload(await login(ctx.app, partner), await claim(), file)).statusCode).toBe(201)
    } finally {
      now = NOW
    }
  })
})
