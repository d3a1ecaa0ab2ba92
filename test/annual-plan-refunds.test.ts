import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run } from '../src/cli/program.js'
import { GatewayUnavailableError } from '../src/modules/payments/payment.errors.js'
import type { PaymentGateway } from '../src/modules/payments/payment-gateway.js'
import { SandboxGateway } from '../src/modules/payments/sandbox-gateway.js'
import type { Clock } from '../src/shared/time.js'
import { runRefunds } from '../src/worker/refunds.job.js'
import { uniqueImei, annualCard as VISA } from './helpers/bodies.js'
import { sandboxWith } from './helpers/gateways.js'
import { useTestApp } from './helpers/test-app.js'
import { ANNUAL, bearer, seedCatalog, seller, type Seller as WorldSeller } from './helpers/world.js'

// Refunds that are paid (docs/decisions.md, Annual plans), with the sandbox gateway: opened at the confirmation of an
// own-gateway plan's cancellation, paid by the worker, retried for 3 days, queued again by the CLI.
// The clock starts at the real time: the CLI, which runs on the system clock, shares it.

const dir = mkdtempSync(join(tmpdir(), 'amparo-refunds-'))
let now = new Date()
const clock: Clock = { now: () => now }
const MINUTE = 60_000

afterAll(() => rmSync(dir, { recursive: true, force: true }))
// In a file: the CLI opens its own connection to the ctx.
const ctx = useTestApp({ clock, sqliteFile: join(dir, 'refunds.sqlite') })
let modelId = 0

/** The world's seller, with the token last issued and when (on the test clock). */
type Seller = WorldSeller & { issuedAt: number }

/** A token valid at the clock's instant; logs in again only when the clock has moved far (the login limit). */
async function tokenOf(s: Seller): Promise<string> {
  if (Math.abs(now.getTime() - s.issuedAt) > 30 * 60_000) {
    s.token = await s.login()
    s.issuedAt = now.getTime()
  }
  return s.token
}
let own: Seller
let external: Seller

beforeAll(async () => {
  const { model } = await seedCatalog(ctx.db)
  modelId = model('iPhone 16 Pro').id
  own = await sellerOf('own')
  external = await sellerOf('external')
})

async function sellerOf(gateway: 'own' | 'external'): Promise<Seller> {
  const plansAt = new Date(Date.now() - 86_400_000).toISOString()
  const s = await seller(ctx, { partner: gateway, plans: [ANNUAL], plansAt })
  return { ...s, issuedAt: now.getTime() }
}

async function call(s: Seller, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const response = await ctx.app.inject({
    method,
    url,
    headers: bearer(await tokenOf(s)),
    ...(payload && { payload }),
  })
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(200)
  return response.json()
}

async function contract(s: Seller): Promise<number> {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/annual-plans',
    headers: bearer(await tokenOf(s)),
    payload: {
      model_id: modelId,
      customer_id: s.customerId,
      imei: uniqueImei(),
      ...(s === external && { payment: { method: 'pix' } }),
    },
  })
  expect(response.statusCode, response.body).toBe(201)
  return response.json().id
}

/** A plan paid (by card, or notified), then canceled the same day: the whole premium is refunded. */
async function canceledPlan(s: Seller, { pay = true } = {}) {
  const id = await contract(s)
  if (pay && s === own) await call(s, 'POST', `/annual-plans/${id}/payment`, VISA)
  if (pay && s === external) await call(s, 'POST', `/annual-plans/${id}/notify-payment`)
  const { protocol } = await call(s, 'PUT', `/annual-plans/${id}/cancellation`)
  const plan = await call(s, 'POST', `/annual-plans/${id}/cancellation/${protocol}`)
  return { id, plan }
}

const refunds = (gateway: PaymentGateway) =>
  runRefunds({ db: ctx.db, gateway, clock, timeZone: ctx.config.timeZone, claimSeconds: 60 })

const ledger = (planId: number) =>
  ctx.db
    .selectFrom('payments')
    .select(['route', 'outcome', 'amount', 'decline_code', 'transaction_id'])
    .where('annual_plan_id', '=', planId)
    .orderBy('id')
    .execute()

const refundRow = (planId: number) =>
  ctx.db
    .selectFrom('annual_plan_refunds')
    .selectAll()
    .where('annual_plan_id', '=', planId)
    .executeTakeFirstOrThrow()

async function amparo(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await run(argv, { env: ctx.env, out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out, err }
}

/** The sandbox whose refunds fail as a gateway that does not answer, counted. */
function unavailable() {
  const calls: string[] = []
  const gateway = sandboxWith({
    async refund(_reference, _amount, key) {
      calls.push(key)
      throw new GatewayUnavailableError()
    },
  })
  return { gateway, calls }
}

describe('a canceled own-gateway plan paid by card', () => {
  it('is refunded by the worker: pending at the confirmation, then succeeded, once, in the ledger', async () => {
    now = new Date()
    const { id, plan } = await canceledPlan(own)
    expect(plan.cancellation).toMatchObject({
      refund_amount: plan.premium,
      refund_status: 'pending',
      refunded_at: null,
    })

    now = new Date(now.getTime() + MINUTE)
    expect(await refunds(new SandboxGateway())).toEqual({ refunded: 1, retried: 0, failed: 0, errors: 0 })
    const paid = await call(own, 'GET', `/annual-plans/${id}`)
    expect(paid.cancellation.refund_status).toBe('succeeded')
    expect(paid.cancellation.refunded_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
    const rows = await ledger(id)
    expect(rows.map((r) => [r.route, r.outcome])).toEqual([
      ['card', 'approved'],
      ['refund', 'refunded'],
    ])
    expect(rows[1]).toMatchObject({
      amount: Math.round(plan.premium * 100),
      transaction_id: expect.stringMatching(/^re_test_/),
    })

    expect(await refunds(new SandboxGateway())).toEqual({ refunded: 0, retried: 0, failed: 0, errors: 0 })
    expect(await ledger(id)).toHaveLength(2)

    // The partner hears it: one annual_plan.refund_updated, with the plan as its GET shows it.
    const { data } = await call(own, 'GET', '/events?type=annual_plan.refund_updated&limit=100')
    const mine = data.filter((e: { data: { object: { id: number } } }) => e.data.object.id === id)
    expect(mine).toHaveLength(1)
    expect(mine[0].data.object.cancellation).toMatchObject({ refund_status: 'succeeded' })
  })

  it('is paid by one of two workers running at once', async () => {
    now = new Date()
    const { id } = await canceledPlan(own)
    const keys: string[] = []
    const counting = sandboxWith({
      async refund(reference, amount, key, label) {
        keys.push(key)
        await new Promise((resolve) => setTimeout(resolve, 50))
        return new SandboxGateway().refund(reference, amount, key, label)
      },
    })
    const [a, b] = await Promise.all([refunds(counting), refunds(counting)])
    expect(a.refunded + b.refunded).toBe(1)
    expect(keys).toHaveLength(1)
    expect((await ledger(id)).filter((r) => r.route === 'refund')).toHaveLength(1)
  })

  it('retries errors with a growing back-off for 3 days, then fails; the CLI queues it again', async () => {
    const start = new Date()
    now = start
    const { id } = await canceledPlan(own)
    const { gateway, calls } = unavailable()
    expect(await refunds(gateway)).toMatchObject({ retried: 1, failed: 0 })
    let row = await refundRow(id)
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_error: 'gateway_unavailable' })
    expect(Date.parse(row.next_attempt_at) - start.getTime()).toBe(5 * MINUTE)
    // Not due yet: nothing is tried.
    now = new Date(start.getTime() + 4 * MINUTE)
    expect(await refunds(gateway)).toMatchObject({ retried: 0 })
    const gaps: number[] = []
    while (row.status === 'pending') {
      const previous = Date.parse(row.next_attempt_at)
      now = new Date(previous)
      await refunds(gateway)
      row = await refundRow(id)
      if (row.status === 'pending') gaps.push((Date.parse(row.next_attempt_at) - previous) / MINUTE)
    }
    expect(gaps.slice(0, 7)).toEqual([10, 20, 40, 80, 160, 320, 360])
    expect(now.getTime() - start.getTime()).toBe(72 * 60 * MINUTE)
    expect(row).toMatchObject({ status: 'failed', attempts: calls.length })
    expect(new Set(calls)).toEqual(new Set([`refund-${row.id}`]))
    const attempts = (await ledger(id)).filter((r) => r.route === 'refund')
    expect(attempts).toHaveLength(calls.length)
    expect(attempts.every((r) => r.outcome === 'failed' && r.decline_code === 'gateway_unavailable')).toBe(
      true,
    )
    expect((await call(own, 'GET', `/annual-plans/${id}`)).cancellation).toMatchObject({
      refund_status: 'failed',
      refunded_at: null,
    })

    // The operator queues it again; the worker pays it at its next round, with the same key.
    now = new Date()
    const retried = await amparo('refund', 'retry', String(id), '--json')
    expect(retried.code, retried.err.join('\n')).toBe(0)
    expect(JSON.parse(retried.out[0] as string)).toMatchObject({ annual_plan_id: id, status: 'pending' })
    // Audited as the console's retry is (test/console-partners-search-refunds.test.ts): record `refund` <id>.
    const audit = await ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'refund.retry')
      .executeTakeFirstOrThrow()
    expect(audit).toMatchObject({ record_type: 'refund', record_id: String(row.id) })
    expect(audit.actor_label).toMatch(/^cli:/)
    expect(JSON.parse(audit.before as string)).toMatchObject({ status: 'failed', attempts: row.attempts })
    expect(JSON.parse(audit.after as string)).toMatchObject({ status: 'pending' })
    now = new Date(Date.now() + MINUTE)
    const keys: string[] = []
    const sandbox = new SandboxGateway()
    const working = sandboxWith({
      refund(reference, amount, key, label) {
        keys.push(key)
        return sandbox.refund(reference, amount, key, label)
      },
    })
    expect(await refunds(working)).toMatchObject({ refunded: 1 })
    expect(keys).toEqual([`refund-${row.id}`])
    expect((await call(own, 'GET', `/annual-plans/${id}`)).cancellation.refund_status).toBe('succeeded')

    // Only a failed refund can be queued again; a plan without one is not found.
    const again = await amparo('refund', 'retry', String(id))
    expect(again.code).toBe(2)
    expect(again.err).toEqual([`amparo: The refund of annual plan ${id} is succeeded, not failed.`])
    const none = await amparo('refund', 'retry', '999999', '--json')
    expect(none.code).toBe(2)
    expect(none.err).toEqual(['amparo: Refund not found.'])
  })
})

describe('refund_status of other cancellations', () => {
  it('is partner for an external-gateway plan, and nothing is paid', async () => {
    const { id, plan } = await canceledPlan(external)
    expect(plan.cancellation).toMatchObject({ refund_status: 'partner', refunded_at: null })
    expect(plan.cancellation.refund_amount).toBeGreaterThan(0)
    expect(await refunds(new SandboxGateway())).toMatchObject({ refunded: 0 })
    expect((await ledger(id)).map((r) => r.route)).toEqual(['notification'])
  })

  it('is none when the refund is 0 (never paid), and null while only requested', async () => {
    const { plan } = await canceledPlan(own, { pay: false })
    expect(plan.cancellation).toMatchObject({ refund_amount: 0, refund_status: 'none' })
    const id = await contract(own)
    await call(own, 'PUT', `/annual-plans/${id}/cancellation`)
    expect((await call(own, 'GET', `/annual-plans/${id}`)).cancellation).toMatchObject({
      status: 'requested',
      refund_status: null,
    })
  })
})
