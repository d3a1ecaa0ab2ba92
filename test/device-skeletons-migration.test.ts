import { beforeAll, expect, it } from 'vitest'
import { migrateTo } from '../src/db/migrate.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { testClaimRow } from './helpers/claim-documents.js'
import { olderContracts, useDatabaseAt } from './helpers/world/older-schema.js'

// Migration 0023 reads every stored device key again as a skeleton (docs/decisions.md, Devices):
// a device protected under Cyrillic letters or Arabic-Indic digits is then the same device as its
// ASCII serial; where two keys become one the active protection keeps it, the oldest first.

const ctx = useDatabaseAt('0022-write-indexes')

const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T12:00:00.000Z`
const ARABIC = '٣٥٦٧٨٩١٢٠٣٣٤١٨٨'
const ids: Record<string, number> = {}
const claims: Record<string, number> = {}

beforeAll(async () => {
  const contracts = await olderContracts(ctx, at(1))
  // Each contract with the protection row its key had before (letters and digits of any script, uppercase).
  const protect = async (name: string, day: number, key: string, values: object) => {
    ids[name] = await contracts.subscription({
      ...values,
      created_at: at(day),
      updated_at: at(day),
      ends_on: '2027-11-21',
    })
    await retryingTransaction(ctx.db, (trx) =>
      trx
        .insertInto('device_protections')
        .values({
          device_key: key,
          subscription_id: ids[name] as number,
          annual_plan_id: null,
          created_at: at(day),
        })
        .execute(),
    )
  }
  await protect('latin', 2, 'ABCXKE2026', { serial_number: 'ABCXKE-2026' })
  await protect('cyrillic', 3, 'АВСХКЕ2026', { serial_number: 'АВСХКЕ 2026', status: 'pago' })
  await protect('letterOCanceled', 1, 'F2LXKOABC', { serial_number: 'F2LXKOABC', status: 'canceled' })
  await protect('digitZero', 4, 'F2LXK0ABC', { serial_number: 'F2LXK0ABC' })
  await protect('arabic', 5, ARABIC, { serial_number: ARABIC })
  await protect('unreadable', 6, '序列号', { serial_number: '序列号' })
  await protect('plain', 7, 'XYZ123', { serial_number: 'xyz-123' })

  const subscription = await ctx.db
    .selectFrom('subscriptions')
    .select(['id', 'partner_id', 'plan_id', 'customer_id', 'model_id'])
    .where('id', '=', ids.cyrillic as number)
    .executeTakeFirstOrThrow()
  let seq = 0
  const claim = async (name: string, device_key: string | null, second_device_key: string | null) => {
    seq += 1
    const row = { ...testClaimRow(subscription, 'robbery'), device_key, second_device_key, partner_seq: seq }
    claims[name] = (
      await retryingTransaction(ctx.db, (trx) =>
        trx.insertInto('claims').values(row).returning('id').executeTakeFirstOrThrow(),
      )
    ).id
  }
  await claim('lookAlikes', 'АВСХКЕ2026', ARABIC)
  await claim('plain', 'XYZ123', null)
  await claim('none', null, null)

  expect(await migrateTo(ctx.db, '0023-device-skeletons')).toEqual(['0023-device-skeletons'])
})

it('reads each protection’s key as a skeleton, the active and oldest keeping a key two rows share', async () => {
  const rows = await ctx.db
    .selectFrom('device_protections')
    .select(['device_key', 'subscription_id'])
    .execute()
  expect(rows.sort((a, b) => (a.device_key < b.device_key ? -1 : 1))).toEqual([
    { device_key: '356789120334188', subscription_id: ids.arabic },
    { device_key: 'ABCXKE2026', subscription_id: ids.latin },
    { device_key: 'F2LXK0ABC', subscription_id: ids.digitZero },
    { device_key: 'XYZ123', subscription_id: ids.plain },
    { device_key: '序列号', subscription_id: ids.unreadable },
  ])
})

it('reads claims’ device keys the same way, for repeat_device', async () => {
  const rows = await ctx.db
    .selectFrom('claims')
    .select(['id', 'device_key', 'second_device_key'])
    .orderBy('id')
    .execute()
  expect(rows).toEqual([
    { id: claims.lookAlikes, device_key: 'ABCXKE2026', second_device_key: '356789120334188' },
    { id: claims.plain, device_key: 'XYZ123', second_device_key: null },
    { id: claims.none, device_key: null, second_device_key: null },
  ])
})
