import { randomBytes } from 'node:crypto'
import type { Db } from '../../db/database.js'
import { retryingTransaction } from '../../db/transaction.js'

const NAME = 'gateway_key_namespace'

/**
 * This deployment's namespace of gateway idempotency keys: random, made by the first process that
 * asks and kept, so two databases on one Stripe account never send one key for two operations
 * (docs/decisions.md). Of processes starting together, the first insert wins and all read it.
 */
export async function loadKeyNamespace(db: Db): Promise<string> {
  const made = `amparo_${randomBytes(12).toString('base64url')}`
  await retryingTransaction(db, (trx) =>
    trx
      .insertInto('settings')
      .values({ name: NAME, value: made })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute(),
  )
  const row = await db
    .selectFrom('settings')
    .select('value')
    .where('name', '=', NAME)
    .executeTakeFirstOrThrow()
  return row.value
}
