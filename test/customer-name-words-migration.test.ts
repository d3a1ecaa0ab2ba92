import { beforeAll, expect, it } from 'vitest'
import { migrateToLatest } from '../src/db/migrate.js'
import { retryingTransaction } from '../src/db/transaction.js'
import { olderCustomer, useDatabaseAt } from './helpers/world/older-schema.js'
import { seedPartner } from './helpers/world/partners.js'

// Migration 0029 writes the words of every stored customer's name (docs/decisions.md, "Search by
// name"), plain: the console's search finds the customers of before it by name as the new ones.

const ctx = useDatabaseAt('0027-keyed-attempts')
let ids: number[] = []

beforeAll(async () => {
  const partner = await seedPartner(ctx.db)
  const now = '2026-11-21T12:00:00.000Z'
  ids = [
    await olderCustomer(ctx.db, partner.id, now, '52998224725'),
    await olderCustomer(ctx.db, partner.id, now, '11144477735'),
  ]
  await retryingTransaction(ctx.db, (trx) =>
    trx
      .updateTable('customers')
      .set({ name: 'José da Conceição-Araújo' })
      .where('id', '=', ids[0] as number)
      .execute(),
  )
  await migrateToLatest(ctx.db)
})

it('fills each stored customer’s name words, without accents, lowercase, once each', async () => {
  const rows = await ctx.db
    .selectFrom('customer_name_words')
    .select(['customer_id', 'word'])
    .orderBy('customer_id')
    .orderBy('word')
    .execute()
  expect(rows).toEqual([
    { customer_id: ids[0], word: 'araujo' },
    { customer_id: ids[0], word: 'conceicao' },
    { customer_id: ids[0], word: 'da' },
    { customer_id: ids[0], word: 'jose' },
    { customer_id: ids[1], word: 'cliente' },
  ])
})
