import { decodeJwt } from 'jose'
import { describe, expect, it } from 'vitest'
import { retryingTransaction } from '../../src/db/transaction.js'
import {
  annualBody,
  customerBody,
  FORGED_ID,
  forged,
  instant,
  type Json,
  NOW,
  RENDERED_NOW,
  shopkeeperBody,
  strip,
  subscriptionBody,
  useSecurityWorld,
} from '../helpers/world/security.js'

// OWASP API3:2023 (broken object property level authorization): fields that are not inputs
// never reach the stored row, whatever the body says.

const w = useSecurityWorld()

describe('creation bodies', () => {
  it('POST /customers ignores id, partner_id and timestamps', async () => {
    const a = w.a.external
    const response = await w.call('POST', '/customers', a.token, {
      ...customerBody(),
      ...forged(w.b.external.partnerId),
    })
    expect(response.statusCode, response.body).toBe(201)
    const body = response.json()
    expect(body.id).not.toBe(FORGED_ID)
    expect(body.created_at).toBe(RENDERED_NOW)
    expect(Object.keys(body).sort()).toEqual([
      'address',
      'created_at',
      'document',
      'email',
      'id',
      'name',
      'phone',
    ])
    const row = await w.db
      .selectFrom('customers')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow()
    expect(row.partner_id).toBe(a.partnerId)
    expect(instant(row.created_at)).toBe(NOW.toISOString())
  })

  it('POST /shopkeepers ignores matrix, id and partner_id', async () => {
    const a = w.a.external
    const response = await w.call('POST', '/shopkeepers', a.token, {
      ...shopkeeperBody(),
      ...forged(w.b.external.partnerId),
    })
    expect(response.statusCode, response.body).toBe(201)
    expect(response.json()).toMatchObject({ matrix: false, responsible: null })
    expect(response.json().id).not.toBe(FORGED_ID)
    const row = await w.db
      .selectFrom('shopkeepers')
      .selectAll()
      .where('id', '=', response.json().id)
      .executeTakeFirstOrThrow()
    expect(row.partner_id).toBe(a.partnerId)
    expect(Boolean(row.matrix)).toBe(false)
  })

  /** The same body is contracted twice: its device, protected by the first, is freed for the second. */
  const freeDevices = () => retryingTransaction(w.db, (trx) => trx.deleteFrom('device_protections').execute())

  it('POST /subscriptions: status, prices, ids, card token and installments come from the service', async () => {
    const a = w.a.external
    const body = subscriptionBody(a)
    const clean = await w.ok('POST', '/subscriptions', a.token, body)
    await freeDevices()
    const response = await w.call('POST', '/subscriptions', a.token, {
      ...forged(w.b.external.partnerId),
      partner_seq: 1,
      ...body,
    })
    expect(response.statusCode, response.body).toBe(201)
    const attacked = response.json()
    expect(attacked.id).not.toBe(FORGED_ID)
    expect(strip(attacked, 'id')).toEqual(strip(clean, 'id'))
    expect(attacked).toMatchObject({ status: 'pending', lmi: 6000, installments_count: 12 })
    const rows = await w.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', 'in', [clean.id as number, attacked.id])
      .orderBy('id')
      .execute()
    // Only the id and the partner's sequence number differ: the next one, whatever the body said.
    expect(strip(rows[1] as Json, 'id', 'partner_seq')).toEqual(strip(rows[0] as Json, 'id', 'partner_seq'))
    expect(rows[1]).toMatchObject({
      partner_id: a.partnerId,
      partner_seq: Number(rows[0]?.partner_seq) + 1,
      status: 'pending',
      card_token: null,
      card_last4: null,
    })
    const installments = await w.db
      .selectFrom('installments')
      .selectAll()
      .where('subscription_id', '=', attacked.id)
      .execute()
    expect(installments).toHaveLength(12)
    expect(installments.every((i) => i.status === 'pending' && i.amount === 7200 && i.paid_at === null)).toBe(
      true,
    )
  })

  it('POST /annual-plans: status, premium, lmi, policy number and payment dates come from the service', async () => {
    for (const a of [w.a.external, w.a.own]) {
      const body = annualBody(a)
      const clean = await w.ok('POST', '/annual-plans', a.token, body)
      await freeDevices()
      const extra = { ...forged(w.b.external.partnerId), cancellation: { status: 'confirmed' } }
      const payment = {
        ...(body.payment as Json),
        card: { brand: 'visa', last4: '1111' },
        paid_at: '2000-01-01',
      }
      const response = await w.call('POST', '/annual-plans', a.token, { ...extra, ...body, payment })
      expect(response.statusCode, response.body).toBe(201)
      const attacked = response.json()
      expect(strip(attacked, 'id')).toEqual(strip(clean, 'id'))
      expect(attacked).toMatchObject({
        status: 'awaiting_payment',
        policy_number: null,
        paid_at: null,
        cancellation: null,
      })
      const rows = await w.db
        .selectFrom('annual_plans')
        .selectAll()
        .where('id', 'in', [clean.id as number, attacked.id])
        .orderBy('id')
        .execute()
      expect(strip(rows[1] as Json, 'id')).toEqual(strip(rows[0] as Json, 'id'))
      expect(rows[1]).toMatchObject({ partner_id: a.partnerId, card_last4: null, policy_number: null })
    }
  })
})

describe('login and parser', () => {
  it('POST /auth/login ignores pid, sub and exp sent in the body', async () => {
    const { credentials } = w.a.external
    const body = { client_id: credentials.clientId, client_secret: credentials.clientSecret }
    const extra = {
      pid: w.b.external.partnerId,
      partner_id: w.b.external.partnerId,
      sub: 'client:1',
      exp: 4_000_000_000,
    }
    const token = (await w.ok('POST', '/auth/login', '', { ...extra, ...body })).token as string
    const claims = decodeJwt(token)
    expect(claims.pid).toBe(w.a.external.partnerId)
    expect(claims.exp).toBe(NOW.getTime() / 1000 + 3600)
  })

  it.each([
    ['__proto__', '{"__proto__": {"status": "pago", "partner_id": 1}}'],
    ['constructor.prototype', '{"constructor": {"prototype": {"status": "pago"}}}'],
  ])(
    'a body with %s is read without that key: nothing is polluted or set through it',
    async (_n, pollution) => {
      const body = JSON.stringify(customerBody())
      const payload = `${body.slice(0, -1)}, ${pollution.slice(1)}`
      const response = await w.call('POST', '/customers', w.a.external.token, payload, {
        'content-type': 'application/json',
      })
      expect(response.statusCode, response.body).toBe(201)
      expect(response.json()).not.toHaveProperty('status')
      expect(({} as Json).status).toBeUndefined()
      expect(({} as Json).partner_id).toBeUndefined()
      const row = await w.db
        .selectFrom('customers')
        .select('partner_id')
        .where('id', '=', response.json().id)
        .executeTakeFirstOrThrow()
      expect(row.partner_id).toBe(w.a.external.partnerId)
    },
  )
})
