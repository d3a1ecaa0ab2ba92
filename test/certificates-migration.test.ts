import type { Insertable } from 'kysely'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { migrateTo, migrateToLatest } from '../src/db/migrate.js'
import type { AnnualPlansTable } from '../src/modules/annual-plans/annual-plan.table.js'
import { insertCustomer } from '../src/modules/customers/customer.repository.js'
import type { SubscriptionsTable } from '../src/modules/subscriptions/subscription.table.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'
import { ANNUAL, seedCatalog, seedOlderPlan, seedPartner, TOTAL_12X } from './helpers/world.js'

// Migration 0019 gives the `pago` subscriptions a database already has a policy number from the
// annual plans' sequence, and every contract with a policy number a verification code.

let ctx: TestDatabase
afterAll(() => ctx?.drop())
const ids: Record<string, number> = {}

beforeAll(async () => {
  ctx = await createTestDatabase()
  await migrateTo(ctx.db, '0016-subscription-expiry')
  const catalog = await seedCatalog(ctx.db)
  const partner = await seedPartner(ctx.db)
  const subscriptionPlan = await seedOlderPlan(ctx.db, partner.id, TOTAL_12X)
  const annualPlan = await seedOlderPlan(ctx.db, partner.id, ANNUAL)
  const now = '2026-11-21T12:00:00.000Z'
  const customer = await ctx.db.transaction().execute((trx) =>
    insertCustomer(trx, {
      partner_id: partner.id,
      name: 'Cliente',
      document: '52998224725',
      document_kind: 'cpf',
      email: 'cliente@example.com',
      phone: '11987654321',
      street: null,
      number: null,
      complement: null,
      zipcode: null,
      neighborhood: null,
      city: null,
      state: null,
      created_at: now,
    }),
  )
  const common = {
    partner_id: partner.id,
    customer_id: customer.id,
    model_id: catalog.model('iPhone 16 Pro').id,
    store_id: null,
    is_used: false,
    lmi: 100_000,
    created_at: now,
  }
  const plan = {
    ...common,
    plan_id: annualPlan.id,
    imei: '490154203237518',
    premium: 11_000,
    updated_at: now,
  }
  ids.paidPlan = (
    await ctx.db
      .insertInto('annual_plans')
      .values({
        ...plan,
        status: 'paid',
        policy_number: 'AMP-2026-000001',
        paid_at: now,
      } as Insertable<AnnualPlansTable>)
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  ids.awaitingPlan = (
    await ctx.db
      .insertInto('annual_plans')
      .values({
        ...plan,
        imei: '356938035643809',
        status: 'awaiting_payment',
      } as Insertable<AnnualPlansTable>)
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  let seq = 0
  for (const [name, status] of [
    ['pago', 'pago'],
    ['pending', 'pending'],
  ] as const) {
    seq += 1
    const row = {
      ...common,
      plan_id: subscriptionPlan.id,
      partner_seq: seq,
      serial_number: null,
      second_serial_number: null,
      monthly_premium: 1200,
      franchise: 15_000,
      installments_count: 12,
      status,
      origin: null,
      card_token: null,
      card_brand: null,
      card_last4: null,
      canceled_at: null,
      cancel_reason: null,
      ends_on: '2027-11-21',
      updated_at: now,
    } as Insertable<SubscriptionsTable>
    ids[name] = (
      await ctx.db.insertInto('subscriptions').values(row).returning('id').executeTakeFirstOrThrow()
    ).id
  }
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
  const next = await ctx.db
    .insertInto('annual_plans')
    .values({ ...paid, imei: '356938035643817', status: 'awaiting_payment', paid_at: null })
    .returning('id')
    .executeTakeFirstOrThrow()
  expect(next.id).toBeGreaterThan((ids.awaitingPlan ?? 0) + 1)
})
