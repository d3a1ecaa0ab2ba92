import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { customerBody, uniqueImei } from './helpers/bodies.js'
import {
  type ClaimParty,
  claimOf,
  claimParty,
  paidAnnualPlan,
  paidSubscription,
} from './helpers/claim-decisions-world.js'
import { type ConsoleHeaders, type ConsoleTestContext, createConsoleApp } from './helpers/console.js'
import { useTestApp } from './helpers/test-app.js'
import { bearer, createCustomer, seedCatalog } from './helpers/world.js'

// Search, partners and refunds of the operator console (README, Operator console: Busca,
// Parceiros, Reembolsos): a customer found across partners by any key, credentials issued once and
// revoked, refunds retried; admin-only changes audited; no secret in any answer.

let consoleCtx: ConsoleTestContext
let a: ClaimParty
let b: ClaimParty
let viewer: ConsoleHeaders
let admin: ConsoleHeaders
/** Every console answer's body, for the check that none holds a secret. */
const bodies: string[] = []

const ctx = useTestApp()
beforeAll(async () => {
  consoleCtx = await createConsoleApp({ over: () => ctx })
  await consoleCtx.console.ready()
  const model = (await seedCatalog(ctx.db)).model('Galaxy S25').id
  a = await claimParty(ctx.app, ctx.db, model)
  b = await claimParty(ctx.app, ctx.db, model)
  viewer = await consoleCtx.loginAs('viewer')
  admin = await consoleCtx.loginAs('admin')
})
afterAll(async () => {
  await consoleCtx?.close()
})

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, headers: ConsoleHeaders = viewer) {
  const response = await consoleCtx.console.inject({ method, url, headers })
  bodies.push(response.body)
  return response
}
const auditOf = (action: string) =>
  consoleCtx.db.selectFrom('audit_log').selectAll().where('action', '=', action).orderBy('id').execute()

describe('search', () => {
  let imei: string
  let first: number
  let second: number
  beforeAll(async () => {
    // The same person (the seed's Maria under each partner) protects one device under A, cancels, then under B.
    imei = uniqueImei()
    first = await paidSubscription(ctx.app, a, imei)
    const canceled = await ctx.app.inject({
      method: 'POST',
      url: `/subscriptions/${first}/cancellation`,
      headers: bearer(a.token),
      payload: { reason: 'Trocou de loja.' },
    })
    expect(canceled.statusCode, canceled.body).toBe(200)
    second = await paidAnnualPlan(ctx.app, b, imei)
  })

  it('by IMEI finds the customer under both partners with every contract', async () => {
    const response = await call('GET', `/api/search?q=${imei}`)
    expect(response.statusCode, response.body).toBe(200)
    const { customers } = response.json()
    expect(customers).toHaveLength(1)
    const [person] = customers
    expect(person.document_masked).toMatch(/^\d{3}\.\*{3}\.\*{3}-\d{2}$/)
    expect(person.customers.map((c: { partner: { id: number } }) => c.partner.id).sort()).toEqual(
      [a.partner.id, b.partner.id].sort(),
    )
    const contracts = person.contracts.map(
      (c: { kind: string; id: number; partner: { id: number }; status: string }) => [
        c.kind,
        c.id,
        c.partner.id,
        c.status,
      ],
    )
    expect(contracts).toEqual(
      expect.arrayContaining([
        ['subscription', first, a.partner.id, 'canceled'],
        ['annual_plan', second, b.partner.id, 'paid'],
      ]),
    )
  })

  it('finds the same person by CPF, policy number, claim number and contract id', async () => {
    const policy = (
      await ctx.db
        .selectFrom('annual_plans')
        .select('policy_number')
        .where('id', '=', second)
        .executeTakeFirstOrThrow()
    ).policy_number as string
    const claimId = await claimOf(ctx.db, { annualPlanId: second })
    const claim = await ctx.db
      .selectFrom('claims')
      .select(['number', 'customer_document'])
      .where('id', '=', claimId)
      .executeTakeFirstOrThrow()
    const document = claim.customer_document
    const formatted = `${document.slice(0, 3)}.${document.slice(3, 6)}.${document.slice(6, 9)}-${document.slice(9)}`
    for (const q of [
      document,
      formatted,
      policy,
      policy.toLowerCase(),
      claim.number,
      String(first),
      ` ${imei} `,
    ]) {
      const response = await call('GET', `/api/search?q=${encodeURIComponent(q)}`)
      expect(response.statusCode, q).toBe(200)
      const ids = response
        .json()
        .customers.flatMap((p: { contracts: { id: number; kind: string }[] }) =>
          p.contracts.map((c) => `${c.kind}:${c.id}`),
        )
      expect(ids, q).toEqual(expect.arrayContaining([`subscription:${first}`, `annual_plan:${second}`]))
    }
  })

  it('finds a device written with look-alike letters and another script’s digits by its Latin serial', async () => {
    const n = uniqueImei().slice(-6)
    const arabic = n.replace(/\d/g, (d) => String.fromCodePoint(0x0660 + Number(d)))
    const written = `АВСХКЕ-${arabic}`
    const id = await paidSubscription(ctx.app, a, written)
    const claimId = await claimOf(ctx.db, { subscriptionId: id })
    const claim = await ctx.db
      .selectFrom('claims')
      .select('device_key')
      .where('id', '=', claimId)
      .executeTakeFirstOrThrow()
    expect(claim.device_key).toBe(`ABCXKE${n}`)
    const devanagari = n.replace(/\d/g, (d) => String.fromCodePoint(0x0966 + Number(d)))
    for (const q of [`ABCXKE ${n}`, `abcxke-${devanagari}`, written]) {
      const response = await call('GET', `/api/search?q=${encodeURIComponent(q)}`)
      expect(response.statusCode, q).toBe(200)
      const ids = response
        .json()
        .customers.flatMap((p: { contracts: { id: number; kind: string }[] }) =>
          p.contracts.map((c) => `${c.kind}:${c.id}`),
        )
      expect(ids, q).toContain(`subscription:${id}`)
    }
  })

  it('finds a subscription by its policy number, shown with it', async () => {
    const { policy_number } = await ctx.db
      .selectFrom('subscriptions')
      .select('policy_number')
      .where('id', '=', first)
      .executeTakeFirstOrThrow()
    expect(policy_number).toMatch(/^AMP-\d{4}-\d{6}$/)
    const response = await call('GET', `/api/search?q=${encodeURIComponent(String(policy_number))}`)
    const contracts = response.json().customers.flatMap((p: { contracts: object[] }) => p.contracts)
    expect(contracts).toContainEqual(
      expect.objectContaining({
        kind: 'subscription',
        id: first,
        policy_number,
        status: 'canceled',
        status_label: 'Cancelado',
      }),
    )
  })

  it('finds a customer by the start of any word of the name, accents and case ignored', async () => {
    const body = { ...customerBody(), name: 'Joaquina da Conceição Pereira-Brandão' }
    const joaquina = await createCustomer(ctx.app, a.token, body)
    const found = async (q: string) =>
      (await call('GET', `/api/search?q=${encodeURIComponent(q)}`))
        .json()
        .customers.flatMap((p: { customers: { id: number }[] }) => p.customers.map((c) => c.id))
    for (const q of ['conceicao', 'CONCEI', 'brandão', 'bran', 'joaq pere', 'Pereira Brandao'])
      expect(await found(q), q).toContain(joaquina.id)
    // Each word must start one of the name's; a word of fewer than 3 characters names no one.
    for (const q of ['joaquina silveira', 'aquina', 'jo', 'ão'])
      expect(await found(q), q).not.toContain(joaquina.id)
  })

  it('answers no one for an unknown key, and 422 for an empty one', async () => {
    expect((await call('GET', '/api/search?q=ZZZ-NOTHING-9')).json()).toEqual({ customers: [] })
    expect((await call('GET', '/api/search?q=')).statusCode).toBe(422)
  })
})

describe('partners', () => {
  it('lists partners and shows one with credentials, plans and webhook health, without secrets', async () => {
    const endpoint = await ctx.app.inject({
      method: 'POST',
      url: '/webhook-endpoints',
      headers: bearer(a.token),
      payload: { url: 'https://partner.example.com/hooks', events: ['*'] },
    })
    expect(endpoint.statusCode, endpoint.body).toBe(201)
    const { id: endpointId } = endpoint.json()
    const now = new Date().toISOString()
    const delivery = (status: 'succeeded' | 'failed' | 'pending', n: number, extra = {}) => ({
      endpoint_id: endpointId,
      event_id: n,
      event_public_id: `evt_test_${n}`,
      event_type: 'subscription.created',
      status,
      attempts: 1,
      last_status_code: status === 'succeeded' ? 200 : 500,
      last_error: null,
      next_attempt_at: status === 'pending' ? now : null,
      locked_until: null,
      delivered_at: status === 'succeeded' ? now : null,
      created_at: now,
      ...extra,
    })
    await retryingTransaction(ctx.db, (trx) =>
      trx
        .insertInto('webhook_deliveries')
        .values([
          delivery('succeeded', 1),
          delivery('succeeded', 2),
          delivery('failed', 3),
          delivery('pending', 4),
          delivery('failed', 5, { created_at: new Date(Date.now() - 2 * 86_400_000).toISOString() }),
        ])
        .execute(),
    )

    const list = await call('GET', '/api/partners')
    expect(list.statusCode, list.body).toBe(200)
    expect(list.json().map((p: { id: number }) => p.id)).toEqual(
      expect.arrayContaining([a.partner.id, b.partner.id]),
    )

    const response = await call('GET', `/api/partners/${a.partner.id}`)
    expect(response.statusCode, response.body).toBe(200)
    const partner = response.json()
    expect(partner).toMatchObject({ id: a.partner.id, gateway: 'external' })
    expect(partner.credentials.length).toBeGreaterThan(0)
    expect(partner.plans.map((p: { id: number }) => p.id)).toEqual([a.subscriptionPlanId, a.annualPlanId])
    const [shown] = partner.webhook_endpoints
    expect(shown).toMatchObject({
      id: endpointId,
      url: 'https://partner.example.com/hooks',
      deliveries_24h: { succeeded: 2, failed: 1, pending: 1 },
    })
    expect(shown.failing.map((d: { event_id: string }) => d.event_id)).toEqual([
      'evt_test_5',
      'evt_test_4',
      'evt_test_3',
    ])
    expect(response.body).not.toMatch(/whsec_|secret/)
    expect((await call('GET', '/api/partners/999999')).statusCode).toBe(404)
  })

  it('issues credentials to an admin once, revokes them, and audits both; a viewer gets 403', async () => {
    expect((await call('POST', `/api/partners/${a.partner.id}/credentials`, viewer)).statusCode).toBe(403)
    const issued = await call('POST', `/api/partners/${a.partner.id}/credentials`, admin)
    expect(issued.statusCode, issued.body).toBe(201)
    const credential = issued.json()
    expect(credential).toMatchObject({ client_id: expect.stringMatching(/^test_/), revoked_at: null })
    expect(credential.client_secret).toEqual(expect.any(String))

    // The partner API accepts them; the detail shows them without the secret.
    const token = await ctx.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { client_id: credential.client_id, client_secret: credential.client_secret },
    })
    expect(token.statusCode, token.body).toBe(200)
    const detail = await call('GET', `/api/partners/${a.partner.id}`)
    expect(detail.body).toContain(credential.client_id)
    expect(detail.body).not.toContain(credential.client_secret)

    const path = `/api/partners/${a.partner.id}/credentials/${credential.id}`
    expect((await call('DELETE', path, viewer)).statusCode).toBe(403)
    const revoked = await call('DELETE', path, admin)
    expect(revoked.statusCode, revoked.body).toBe(200)
    expect(revoked.json()).toMatchObject({ id: credential.id, revoked_at: expect.any(String) })
    expect(
      (await call('DELETE', `/api/partners/${b.partner.id}/credentials/${credential.id}`, admin)).statusCode,
    ).toBe(404)

    const [issue] = await auditOf('credentials.issue')
    expect(issue).toMatchObject({ record_type: 'partner', record_id: String(a.partner.id) })
    expect(issue?.after).not.toContain(credential.client_secret)
    expect(await auditOf('credentials.revoke')).toHaveLength(1)
  })
})

describe('refunds', () => {
  const refundOf = async (party: ClaimParty, status: 'pending' | 'failed' | 'succeeded') => {
    const planId = await paidAnnualPlan(ctx.app, party)
    const now = new Date().toISOString()
    const row = await retryingTransaction(ctx.db, (trx) =>
      trx
        .insertInto('annual_plan_refunds')
        .values({
          annual_plan_id: planId,
          partner_id: party.partner.id,
          amount: 41_250,
          payment_reference: `pi_test_${planId}`,
          status,
          attempts: status === 'failed' ? 9 : 0,
          next_attempt_at: now,
          give_up_at: now,
          locked_until: null,
          last_error: status === 'failed' ? 'gateway_unavailable' : null,
          gateway_refund_id: null,
          refunded_at: null,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow(),
    )
    return row.id
  }

  it('lists pending and failed refunds, and an admin retries a failed one, audited', async () => {
    const failed = await refundOf(a, 'failed')
    const pending = await refundOf(b, 'pending')
    await refundOf(b, 'succeeded')
    const ids = async (query: string) =>
      (await call('GET', `/api/refunds${query}`)).json().data.map((r: { id: number }) => r.id)
    expect(await ids('')).toEqual([failed, pending])
    expect(await ids('?status=failed')).toEqual([failed])
    expect(await ids('?status=pending')).toEqual([pending])
    const [item] = (await call('GET', '/api/refunds?status=failed')).json().data
    expect(item).toMatchObject({
      amount_cents: 41_250,
      attempts: 9,
      last_error: 'gateway_unavailable',
      partner: { id: a.partner.id },
    })

    expect((await call('POST', `/api/refunds/${failed}/retry`, viewer)).statusCode).toBe(403)
    const retried = await call('POST', `/api/refunds/${failed}/retry`, admin)
    expect(retried.statusCode, retried.body).toBe(200)
    expect(retried.json()).toMatchObject({ id: failed, status: 'pending' })
    expect((await call('POST', `/api/refunds/${failed}/retry`, admin)).statusCode).toBe(422)
    expect((await call('POST', '/api/refunds/999999/retry', admin)).statusCode).toBe(404)
    const [audit] = await auditOf('refund.retry')
    expect(audit).toMatchObject({ record_type: 'refund', record_id: String(failed) })
    expect(JSON.parse(audit?.before as string)).toMatchObject({ status: 'failed' })
    expect(JSON.parse(audit?.after as string)).toMatchObject({ status: 'pending' })
  })
})

describe('secrets', () => {
  it('no console answer holds a secret hash, webhook secret, password hash or TOTP seed', async () => {
    expect(bodies.length).toBeGreaterThan(10)
    const [secrets, hooks] = await Promise.all([
      ctx.db.selectFrom('credentials').select('secret_hash').execute(),
      ctx.db.selectFrom('webhook_endpoints').select('secret').execute(),
    ])
    const forbidden = [...secrets.map((s) => s.secret_hash), ...hooks.map((h) => h.secret)]
    for (const body of bodies) {
      for (const secret of forbidden) expect(body).not.toContain(secret)
      expect(body).not.toMatch(/secret_hash|password_hash|totp_secret|whsec_/)
    }
  })
})
