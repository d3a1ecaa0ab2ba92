import { beforeAll, expect, it } from 'vitest'
import { migrateTo } from '../src/db/migrate.js'
import { olderContracts, useDatabaseAt } from './helpers/world/older-schema.js'

// Migration 0008 records the active protections a database already has, oldest first: where two
// already name one device, the oldest keeps it.

const ctx = useDatabaseAt('0007-money-bigint')

const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T12:00:00.000Z`
const ids: Record<string, number> = {}

beforeAll(async () => {
  const contracts = await olderContracts(ctx, at(1))
  const subscription = async (name: string, day: number, values: object) => {
    ids[name] = await contracts.subscription({ ...values, created_at: at(day) })
  }
  const plan = async (name: string, day: number, values: object) => {
    ids[name] = await contracts.annualPlan({ ...values, created_at: at(day) })
  }
  // Inserted out of age order: the migration orders by created_at.
  await subscription('newerDuplicate', 5, { serial_number: 'abc-123' })
  await subscription('oldest', 2, { serial_number: 'ABC123', second_serial_number: 'SECOND-1' })
  await subscription('canceled', 1, { serial_number: 'GONE-1', status: 'canceled' })
  await subscription('paid', 3, { serial_number: 'PAID 1', status: 'pago' })
  await plan('planAwaiting', 3, { imei: '490154203237518', imei_2: '356938035643809' })
  await plan('planCanceled', 1, { imei: '356938035643817', status: 'canceled' })
  await plan('planDuplicate', 4, { imei: '35-693803-564380-9', status: 'paid' })

  expect(await migrateTo(ctx.db, '0008-device-protections')).toEqual(['0008-device-protections'])
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
