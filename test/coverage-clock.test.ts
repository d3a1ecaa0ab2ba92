import { beforeAll, describe, expect, it } from 'vitest'
import { retryingTransaction } from '../src/db/transaction.js'
import { advanceCoverageClock } from '../src/modules/annual-plans/annual-plan-lifecycle.service.js'
import { renderingContext } from '../src/modules/events/event.service.js'
import { SandboxGateway } from '../src/modules/payments/sandbox-gateway.js'
import { createMetrics } from '../src/plugins/metrics.js'
import { JobsFailedError, runJobsOnce } from '../src/worker/worker.js'
import { useTestApp } from './helpers/test-app.js'
import {
  ANNUAL,
  bearer,
  createCustomer,
  login,
  partnerWithToken,
  seedCatalog,
  seedPlan,
  type TestPartner,
} from './helpers/world.js'

// Paid 2026-11-21 12:00 São Paulo: cover from 2026-11-22 00:00 (03:00Z) to 2027-11-22 00:00.
let now = new Date('2026-11-21T15:00:00.000Z')
const clock = { now: () => now }

let token: string
let planId: number
let partner: TestPartner

const ctx = useTestApp({ clock, env: { AMPARO_LOGIN_RATE_LIMIT: '1000' } })
beforeAll(async () => {
  const catalog = await seedCatalog(ctx.db)
  ;({ partner, token } = await partnerWithToken(ctx.app, ctx.db, 'external'))
  await seedPlan(ctx.db, partner.id, ANNUAL, now.toISOString())
  const headers = bearer(token)
  await createCustomer(ctx.app, token)
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/annual-plans',
    headers,
    payload: {
      model_id: catalog.model('iPhone 16 Pro').id,
      customer_document: '52998224725',
      imei: '490154203237518',
      payment: { method: 'pix' },
    },
  })
  expect(created.statusCode).toBe(201)
  planId = created.json().id
  const paid = await ctx.app.inject({
    method: 'POST',
    url: `/annual-plans/${planId}/notify-payment`,
    headers,
  })
  expect(paid.statusCode).toBe(200)
})

const stored = async () =>
  (
    await ctx.db
      .selectFrom('annual_plans')
      .select('status')
      .where('id', '=', planId)
      .executeTakeFirstOrThrow()
  ).status

const deps = () => ({ db: ctx.db, clock, timeZone: ctx.config.timeZone })

describe('the worker persists the coverage clock', () => {
  it('leaves a plan paid before its cover starts', async () => {
    now = new Date('2026-11-22T02:59:59.000Z')
    expect(
      await advanceCoverageClock(ctx.db, clock.now().toISOString(), renderingContext(ctx.config)),
    ).toEqual({
      protected: 0,
      expired: 0,
    })
    expect(await stored()).toBe('paid')
  })

  it('stores protected from 00:00 local of the next day', async () => {
    now = new Date('2026-11-22T03:00:00.000Z')
    expect(
      await advanceCoverageClock(ctx.db, clock.now().toISOString(), renderingContext(ctx.config)),
    ).toEqual({
      protected: 1,
      expired: 0,
    })
    expect(await stored()).toBe('protected')
    expect(
      await advanceCoverageClock(ctx.db, clock.now().toISOString(), renderingContext(ctx.config)),
    ).toEqual({
      protected: 0,
      expired: 0,
    })
  })

  it('stores expired at the end of the term, through a worker round, and counts it', async () => {
    now = new Date('2027-11-22T03:00:00.000Z')
    const metrics = createMetrics(ctx.db)
    const run = await runJobsOnce({ ...deps(), gateway: null, metrics })
    expect(run.coverage).toEqual({ protected: 0, expired: 1 })
    expect(await stored()).toBe('expired')
    const text = await metrics.registry.metrics()
    expect(text).toContain('amparo_job_items_total{job="coverage_clock",outcome="expired"} 1')
    expect(text).toContain('amparo_job_runs_total{job="pending_expiry"} 1')
  })

  it('a round whose first job fails still runs the others, then reports the failure', async () => {
    await retryingTransaction(ctx.db, (trx) =>
      trx.updateTable('annual_plans').set({ status: 'protected' }).where('id', '=', planId).execute(),
    )
    // The reconciliation of unrecorded charges is the first job and reads the clock first: only its run fails.
    let calls = 0
    const failingOnce = {
      now: () => {
        calls += 1
        if (calls === 1) throw new Error('clock unavailable')
        return now
      },
    }
    const metrics = createMetrics(ctx.db)
    const round = runJobsOnce({ ...deps(), clock: failingOnce, gateway: new SandboxGateway(), metrics })
    const error = await round.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(JobsFailedError)
    expect((error as JobsFailedError).message).toBe('worker jobs failed: reconciliation')
    expect((error as JobsFailedError).errors.map((e: Error) => e.message)).toEqual([
      'reconciliation: clock unavailable',
    ])
    expect((error as JobsFailedError).run).toMatchObject({
      reconciliation: undefined,
      expiry: { canceled: 0 },
      coverage: { protected: 0, expired: 1 },
      idempotency: { purged: 0 },
    })
    expect(await stored()).toBe('expired')
    const text = await metrics.registry.metrics()
    expect(text).toContain('amparo_job_failures_total{job="reconciliation"} 1')
    expect(text).toContain('amparo_job_runs_total{job="idempotency_purge"} 1')
  })

  it('the API shows the same status', async () => {
    const response = await ctx.app.inject({
      url: `/annual-plans/${planId}`,
      headers: bearer(await login(ctx.app, partner)),
    })
    expect(response.json().status).toBe('expired')
  })
})
