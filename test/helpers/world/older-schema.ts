// The world of a migration test: a database held at an older migration, and contracts inserted as
// rows of that schema (the routes of the day are gone), for the migration under test to rewrite.

import type { Insertable } from 'kysely'
import { afterAll, beforeAll } from 'vitest'
import type { Db } from '../../../src/db/database.js'
import { migrateTo } from '../../../src/db/migrate.js'
import type { AnnualPlansTable } from '../../../src/db/tables/annual-plan.js'
import type { SubscriptionsTable } from '../../../src/db/tables/subscription.js'
import { retryingTransaction } from '../../../src/db/transaction.js'
import { createTestDatabase, type TestDatabase } from '../test-db.js'
import { seedCatalog } from './catalog.js'
import { seedPartner } from './partners.js'
import { ANNUAL, seedOlderPlan, TOTAL_12X } from './plans.js'

/**
 * The set-up fixture of a migration test: a fresh database migrated up to `migration` (its later
 * migrations' `down` run too) before the file's first test, dropped after its last. Filled in
 * place, like `useTestApp`'s context.
 */
export function useDatabaseAt(migration: string): TestDatabase {
  const ctx = {} as TestDatabase
  beforeAll(async () => {
    Object.assign(ctx, await createTestDatabase())
    await migrateTo(ctx.db, migration)
  }, 120_000)
  afterAll(async () => {
    await ctx.drop?.()
  })
  return ctx
}

/** Inserts contracts as rows; each call gives the new row's id. */
export interface OlderContracts {
  /** A pending 12-installment subscription of the customer for an iPhone 16 Pro, with `values` over it. */
  subscription(values?: Partial<SubscriptionsTable>): Promise<number>
  /** An annual plan awaiting payment, of the same customer and model, with `values` over it. */
  annualPlan(values?: Partial<AnnualPlansTable>): Promise<number>
}

/**
 * The catalog, a partner with a 12-installment and an annual plan, and one customer, written as
 * rows at `now` on a database at an older migration; then its contracts, through the returned
 * functions. Columns added after that migration are passed in `values` by the test that needs them.
 */
export async function olderContracts(ctx: TestDatabase, now: string): Promise<OlderContracts> {
  const { db } = ctx
  const catalog = await seedCatalog(db)
  const partner = await seedPartner(db)
  const subscriptionPlan = await seedOlderPlan(db, partner.id, TOTAL_12X)
  const annualPlan = await seedOlderPlan(db, partner.id, ANNUAL)
  const customerId = await olderCustomer(db, partner.id, now)
  const common = {
    partner_id: partner.id,
    customer_id: customerId,
    model_id: catalog.model('iPhone 16 Pro').id,
    store_id: null,
    is_used: false,
    lmi: 100_000,
    created_at: now,
  }
  let seq = 0
  return {
    async subscription(values = {}) {
      seq += 1
      const row = {
        ...olderSubscription({ ...common, plan_id: subscriptionPlan.id }),
        partner_seq: seq,
        ...values,
      } as Insertable<SubscriptionsTable>
      return (
        await retryingTransaction(db, (trx) =>
          trx.insertInto('subscriptions').values(row).returning('id').executeTakeFirstOrThrow(),
        )
      ).id
    },
    async annualPlan(values = {}) {
      const row = {
        ...common,
        plan_id: annualPlan.id,
        imei: '490154203237518',
        premium: 11_000,
        status: 'awaiting_payment',
        ...values,
      } as Insertable<AnnualPlansTable>
      return (
        await retryingTransaction(db, (trx) =>
          trx.insertInto('annual_plans').values(row).returning('id').executeTakeFirstOrThrow(),
        )
      ).id
    },
  }
}

/** A customer of `partnerId` written as a row at `now`, with no address; its id. */
export async function olderCustomer(db: Db, partnerId: number, now: string, document = '52998224725') {
  // As a row of the older schema: the live repository also writes tables a later migration makes.
  const customer = await retryingTransaction(db, (trx) =>
    trx
      .insertInto('customers')
      .values({
        partner_id: partnerId,
        name: 'Cliente',
        document,
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
      })
      .returning('id')
      .executeTakeFirstOrThrow(),
  )
  return customer.id
}

interface SubscriptionParties {
  partner_id: number
  customer_id: number
  plan_id: number
  model_id: number
  created_at: string
}

/**
 * A pending 12-installment subscription row as the first schemas had it (no `partner_seq`, which
 * migration 0006 added): columns a later migration added are the caller's to put over it.
 */
export function olderSubscription(parties: SubscriptionParties) {
  return {
    store_id: null,
    is_used: false,
    lmi: 100_000,
    ...parties,
    serial_number: null,
    second_serial_number: null,
    monthly_premium: 1200,
    franchise: 15_000,
    installments_count: 12,
    status: 'pending' as const,
    origin: null,
    card_token: null,
    card_brand: null,
    card_last4: null,
    canceled_at: null,
    cancel_reason: null,
  }
}
