import type { Insertable } from 'kysely'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { isPostgres } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import type { SubscriptionsTable } from '../src/db/tables/subscription.js'
import { retryingTransaction } from '../src/db/transaction.js'
import {
  findSubscriptionState,
  listSubscriptionViews,
} from '../src/modules/subscriptions/subscription.repository.js'
import { contractSubscription } from '../src/modules/subscriptions/subscription.service.js'
import { olderCustomer, olderSubscription, useDatabaseAt } from './helpers/world/older-schema.js'
import { seedCatalog, seedOlderPlan, seedPartner, TOTAL_12X } from './helpers/world.js'

// Migration 0006 numbers the subscriptions a database already has: a database at 0005 gets rows,
// then migrates, and must list and contract exactly as if every row had been contracted since.

const NOW = '2026-11-21T15:04:05.000Z'

// Back to the schema before 0006 (its `down` runs too).
const ctx = useDatabaseAt('0005-idempotency-keys')

interface Fixture {
  partnerId: number
  planId: number
  customerId: number
  modelId: number
  /** Its subscriptions' ids, oldest first. */
  ids: number[]
}
const fixtures: Fixture[] = []

beforeAll(async () => {
  const catalog = await seedCatalog(ctx.db)
  for (const document of ['52998224725', '12345678909', '11144477735']) {
    const partner = await seedPartner(ctx.db)
    const plan = await seedOlderPlan(ctx.db, partner.id, TOTAL_12X, NOW)
    const customerId = await olderCustomer(ctx.db, partner.id, NOW, document)
    const planId = plan.id
    fixtures.push({
      partnerId: partner.id,
      planId,
      customerId,
      modelId: catalog.model('iPhone 16 Pro').id,
      ids: [],
    })
  }
  // The first two partners interleaved; the third has none.
  for (const index of [0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0]) {
    const f = fixtures[index] as Fixture
    const row = olderSubscription({
      partner_id: f.partnerId,
      customer_id: f.customerId,
      plan_id: f.planId,
      model_id: f.modelId,
      created_at: NOW,
    })
    // Before 0006 the table has no partner_seq: the row is what an older version wrote.
    const { id } = await retryingTransaction(ctx.db, (trx) =>
      trx
        .insertInto('subscriptions')
        .values(row as Insertable<SubscriptionsTable>)
        .returning('id')
        .executeTakeFirstOrThrow(),
    )
    f.ids.push(id)
  }
  // The later migrations run too; the ones under test come first.
  expect((await migrateToLatest(ctx.db)).slice(0, 2)).toEqual(['0006-partner-sequences', '0007-money-bigint'])
})

describe('migration 0006-partner-sequences', () => {
  it("numbers each partner's existing subscriptions 1..n in id order", async () => {
    for (const f of fixtures) {
      const rows = await ctx.db
        .selectFrom('subscriptions')
        .select(['id', 'partner_seq'])
        .where('partner_id', '=', f.partnerId)
        .orderBy('id')
        .execute()
      expect(rows.map((r) => r.id)).toEqual(f.ids)
      expect(rows.map((r) => Number(r.partner_seq))).toEqual(f.ids.map((_, i) => i + 1))
    }
  })

  it('lists the migrated rows newest first with their totals, page by page', async () => {
    for (const f of fixtures) {
      const seen: number[] = []
      for (let offset = 0; offset < f.ids.length + 4; offset += 4) {
        const { rows, total } = await listSubscriptionViews(
          ctx.db,
          f.partnerId,
          { today: '2026-01-01' },
          offset,
          4,
        )
        expect(total).toBe(f.ids.length)
        seen.push(...rows.map((r) => r.id))
      }
      expect(seen).toEqual([...f.ids].reverse())
    }
  })

  it('continues the sequence on the next contract, first use of the counter included', async () => {
    for (const f of fixtures) {
      const { id } = await retryingTransaction(ctx.db, (trx) =>
        contractSubscription(
          trx,
          { partnerId: f.partnerId, gateway: 'external', lmiMinFactorBp: 5000, lmiMaxFactorBp: 10_000 },
          { plan_id: f.planId, customer_id: f.customerId, model_id: f.modelId },
          { now: NOW, realNow: NOW, timeZone: 'America/Sao_Paulo' },
          { base: 'http://localhost:3000', timeZone: 'America/Sao_Paulo' },
          'http://localhost:3000',
        ),
      )
      expect(await findSubscriptionState(ctx.db, f.partnerId, id)).toBeDefined()
      const row = await ctx.db
        .selectFrom('subscriptions')
        .select('partner_seq')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      expect(Number(row.partner_seq)).toBe(f.ids.length + 1)
      const { rows, total } = await listSubscriptionViews(ctx.db, f.partnerId, { today: '2026-01-01' }, 0, 1)
      expect(total).toBe(f.ids.length + 1)
      expect(rows.map((r) => r.id)).toEqual([id])
    }
  })

  it.runIf(process.env.DATABASE_URL)('makes partner_seq NOT NULL on PostgreSQL', async () => {
    expect(isPostgres(ctx.db)).toBe(true)
    const { rows } = await sql<{ is_nullable: string }>`
      select is_nullable from information_schema.columns
      where table_schema = current_schema() and table_name = 'subscriptions' and column_name = 'partner_seq'
    `.execute(ctx.db)
    expect(rows).toEqual([{ is_nullable: 'NO' }])
  })
})
