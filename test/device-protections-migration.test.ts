import type { Insertable } from 'kysely'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { migrateTo, migrateToLatest } from '../src/db/migrate.js'
import type { AnnualPlansTable } from '../src/modules/annual-plans/annual-plan.table.js'
import { insertCustomer } from '../src/modules/customers/customer.repository.js'
import type { SubscriptionsTable } from '../src/modules/subscriptions/subscription.table.js'
import { createTestDatabase, type TestDatabase } from './helpers/test-db.js'
import { ANNUAL, seedCatalog, seedOlderPlan, seedPartner, TOTAL_12X } from './helpers/world.js'

// Migration 0008 records the active protections a database already has, oldest first: where two
// already name one device, the oldest keeps it.

let ctx: TestDatabase
afterAll(() => ctx?.drop())

const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T12:00:00.000Z`
const ids: Record<string, number> = {}

beforeAll(async () => {
  ctx = await createTestDatabase()
  await migrateTo(ctx.db, '0007-money-bigint')
  const catalog = await seedCatalog(ctx.db)
  const partner = await seedPartner(ctx.db)
  const subscriptionPlan = await seedOlderPlan(ctx.db, partner.id, TOTAL_12X)
  const annualPlan = await seedOlderPlan(ctx.db, partner.id, ANNUAL)
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
      created_at: at(1),
    }),
  )
  const common = {
    partner_id: partner.id,
    customer_id: customer.id,
    model_id: catalog.model('iPhone 16 Pro').id,
    store_id: null,
    is_used: false,
    lmi: 100_000,
    created_at: at(1),
  }
  let seq = 0
  const subscription = async (name: string, day: number, values: Partial<SubscriptionsTable>) => {
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
      status: 'pending',
      origin: null,
      card_token: null,
      card_brand: null,
      card_last4: null,
      canceled_at: null,
      cancel_reason: null,
      ...values,
      created_at: at(day),
    } as Insertable<SubscriptionsTable>
    ids[name] = (
      await ctx.db.insertInto('subscriptions').values(row).returning('id').executeTakeFirstOrThrow()
    ).id
  }
  const plan = async (name: string, day: number, values: Partial<AnnualPlansTable>) => {
    const row = {
      ...common,
      plan_id: annualPlan.id,
      imei: '490154203237518',
      premium: 11_000,
      status: 'awaiting_payment',
      ...values,
      created_at: at(day),
    } as Insertable<AnnualPlansTable>
    ids[name] = (
      await ctx.db.insertInto('annual_plans').values(row).returning('id').executeTakeFirstOrThrow()
    ).id
  }
  // Inserted out of age order: the migration orders by created_at.
  await subscription('newerDuplicate', 5, { serial_number: 'abc-123' })
  await subscription('oldest', 2, { serial_number: 'ABC123', second_serial_number: 'SECOND-1' })
  await subscription('canceled', 1, { serial_number: 'GONE-1', status: 'canceled' })
  await subscription('paid', 3, { serial_number: 'PAID 1', status: 'pago' })
  await plan('planAwaiting', 3, { imei: '490154203237518', imei_2: '356938035643809' })
  await plan('planCanceled', 1, { imei: '356938035643817', status: 'canceled' })
  await plan('planDuplicate', 4, { imei: '35-693803-564380-9', status: 'paid' })

  expect(await migrateToLatest(ctx.db)).toContain('0008-device-protections')
})

it('records each active device once, for its oldest active protection', async () => {
  const rows = await ctx.db
    .selectFrom('device_protections')
    .select(['device_key', 'subscription_id', 'annual_plan_id'])
    .orderBy('device_key')
    .execute()
  expect(rows).toEqual([
    { device_key: '356938035643809', subscription_id: null, annual_plan_id: ids.planAwaiting },
    { device_key: '490154203237518', subscription_id: null, annual_plan_id: ids.planAwaiting },
    { device_key: 'ABC123', subscription_id: ids.oldest, annual_plan_id: null },
    { device_key: 'PAID1', subscription_id: ids.paid, annual_plan_id: null },
    { device_key: 'SECOND1', subscription_id: ids.oldest, annual_plan_id: null },
  ])
})
