import { beforeAll, expect, it } from 'vitest'
import { migrateToLatest } from '../src/db/migrate.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { olderContracts, useDatabaseAt } from './helpers/world/older-schema.js'

// Migration 0019 gives the `pago` subscriptions a database already has a policy number from the
// annual plans' sequence, and every contract with a policy number a verification code.

const ctx = useDatabaseAt('0016-subscription-expiry')
const ids: Record<string, number> = {}

beforeAll(async () => {
  const now = '2026-11-21T12:00:00.000Z'
  const contracts = await olderContracts(ctx, now)
  ids.paidPlan = await contracts.annualPlan({
    status: 'paid',
    policy_number: 'AMP-2026-000001',
    paid_at: now,
    updated_at: now,
  })
  ids.awaitingPlan = await contracts.annualPlan({ imei: '356938035643809', updated_at: now })
  for (const status of ['pago', 'pending'] as const)
    ids[status] = await contracts.subscription({ status, ends_on: '2027-11-21', updated_at: now })
  expect(await migrateToLatest(ctx.db)).toContain('0019-certificates')
})

it('numbers the pago subscription from the annual plans’ sequence, and gives codes', async () => {
  const subscriptions = await ctx.db
    .selectFrom('subscriptions')
    .select(['id', 'policy_number', 'certificate_code'])
    .orderBy('id')
    .execute()
  const pago = subscriptions.find((s) => s.id === ids.pago)
  const pending = subscriptions.find((s) => s.id === ids.pending)
  // The plans took 1 and 2: the subscription's number comes after them.
  expect(pago?.policy_number).toBe(`AMP-2026-${String((ids.awaitingPlan ?? 0) + 1).padStart(6, '0')}`)
  expect(pago?.certificate_code).toMatch(/^[A-Z2-7]{32}$/)
  expect(pending).toMatchObject({ policy_number: null, certificate_code: null })

  const plans = await ctx.db
    .selectFrom('annual_plans')
    .select(['id', 'certificate_code'])
    .orderBy('id')
    .execute()
  expect(plans.find((p) => p.id === ids.paidPlan)?.certificate_code).toMatch(/^[A-Z2-7]{32}$/)
  expect(plans.find((p) => p.id === ids.awaitingPlan)?.certificate_code).toBeNull()

  // A plan contracted after the migration does not take the subscription's number.
  const {
    id: _id,
    certificate_code: _code,
    policy_number: _number,
    ...paid
  } = await ctx.db
    .selectFrom('annual_plans')
    .selectAll()
    .where('id', '=', ids.paidPlan ?? 0)
    .executeTakeFirstOrThrow()
  const next = await retryingTransaction(ctx.db, (trx) =>
    trx
      .insertInto('annual_plans')
      .values({ ...paid, imei: '356938035643817', status: 'awaiting_payment', paid_at: null })
      .returning('id')
      .executeTakeFirstOrThrow(),
  )
  expect(next.id).toBeGreaterThan((ids.awaitingPlan ?? 0) + 1)
})
