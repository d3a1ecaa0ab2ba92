import { type Kysely, sql } from 'kysely'
import { beforeAll, expect, it } from 'vitest'
import { migrateTo } from '../src/db/migrate.js'
import { olderContracts, useDatabaseAt } from './helpers/world/older-schema.js'

// Migration 0028 stores a subscription's recorded expiry as its status, as an annual plan's is:
// `pago` with `expired_at` becomes `expired`, and `expired_at` goes; its `down` gives them back.

const ctx = useDatabaseAt('0027-keyed-attempts')
const ids: Record<string, number> = {}
const now = '2026-11-21T12:00:00.000Z'
const endedAt = '2026-11-01T03:00:00.000Z'
// biome-ignore lint/suspicious/noExplicitAny: the schema before and after the migration, not the application's
const untyped = () => ctx.db as unknown as Kysely<any>

beforeAll(async () => {
  const contracts = await olderContracts(ctx, now)
  const at = { updated_at: now }
  ids.expired = await contracts.subscription({
    status: 'pago',
    ends_on: '2026-11-01',
    ...{ expired_at: endedAt },
    updated_at: endedAt,
  })
  ids.endedUnrecorded = await contracts.subscription({ status: 'pago', ends_on: '2026-11-01', ...at })
  ids.pago = await contracts.subscription({ status: 'pago', ends_on: '2027-11-21', ...at })
  ids.pending = await contracts.subscription({ status: 'pending', ends_on: '2027-11-21', ...at })
  ids.canceled = await contracts.subscription({ status: 'canceled', ends_on: '2027-11-21', ...at })
  await untyped()
    .insertInto('installments')
    .values({
      subscription_id: ids.expired,
      number: 1,
      amount: 1200,
      due_date: '2025-11-01',
      status: 'paid',
      paid_at: now,
      created_at: now,
    })
    .execute()
  // Up to this migration only: a later one (0030) replaces the premium months read below.
  expect(await migrateTo(ctx.db, '0028-subscription-expired-status')).toContain(
    '0028-subscription-expired-status',
  )
})

const statuses = async () =>
  Object.fromEntries(
    (await untyped().selectFrom('subscriptions').select(['id', 'status', 'updated_at']).execute()).map(
      (r) => [r.id, { status: r.status, updated_at: new Date(r.updated_at).toISOString() }],
    ),
  )

it('stores a recorded expiry as `expired`, keeps the others, and drops expired_at', async () => {
  expect(await statuses()).toEqual({
    [ids.expired ?? 0]: { status: 'expired', updated_at: endedAt },
    // Its end has come but was not recorded: the worker or the first read records it, with its event.
    [ids.endedUnrecorded ?? 0]: { status: 'pago', updated_at: now },
    [ids.pago ?? 0]: { status: 'pago', updated_at: now },
    [ids.pending ?? 0]: { status: 'pending', updated_at: now },
    [ids.canceled ?? 0]: { status: 'canceled', updated_at: now },
  })
  await expect(untyped().selectFrom('subscriptions').select('expired_at').execute()).rejects.toThrow()
})

it('keeps the table’s constraints, references and trigger through the rebuild', async () => {
  await expect(
    untyped().updateTable('subscriptions').set({ status: 'protected' }).where('id', '=', ids.pago).execute(),
  ).rejects.toThrow()
  await expect(
    untyped()
      .insertInto('installments')
      .values({
        subscription_id: 999_999,
        number: 1,
        amount: 1,
        due_date: '2026-11-21',
        status: 'pending',
        created_at: now,
      })
      .execute(),
  ).rejects.toThrow()
  const installment = await untyped()
    .selectFrom('installments')
    .select('subscription_id')
    .where('subscription_id', '=', ids.expired)
    .executeTakeFirst()
  expect(installment?.subscription_id).toBe(ids.expired)
  // The premium months a contract adds to (migration 0018's trigger) still grow with one.
  const written = async () =>
    Number(
      (
        await sql<{
          total: string | number
        }>`select coalesce(sum(written), 0) as total from premium_months`.execute(ctx.db)
      ).rows[0]?.total,
    )
  const before = await written()
  const row = await untyped()
    .selectFrom('subscriptions')
    .selectAll()
    .where('id', '=', ids.pago)
    .executeTakeFirstOrThrow()
  const { id: _id, ...copy } = row
  await untyped()
    .insertInto('subscriptions')
    .values({ ...copy, partner_seq: 99 })
    .execute()
  expect(await written()).toBeGreaterThan(before)
})

it('gives them back as `pago` with `expired_at` when reverted, and applies again', async () => {
  await migrateTo(ctx.db, '0027-keyed-attempts')
  const row = await untyped()
    .selectFrom('subscriptions')
    .select(['status', 'expired_at'])
    .where('id', '=', ids.expired)
    .executeTakeFirstOrThrow()
  expect({ status: row.status, expired_at: new Date(row.expired_at).toISOString() }).toEqual({
    status: 'pago',
    expired_at: endedAt,
  })
  expect(await migrateTo(ctx.db, '0028-subscription-expired-status')).toEqual([
    '0028-subscription-expired-status',
  ])
  expect((await statuses())[ids.expired ?? 0]?.status).toBe('expired')
})
