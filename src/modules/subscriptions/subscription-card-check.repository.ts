import type { Insertable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import type { CardChecksTable } from '../../db/tables/payment.js'

/** The number of this card check of a subscription: one more than those recorded (see nextChargeNumber). */
export async function nextCardCheckNumber(db: Reader, subscriptionId: number): Promise<number> {
  const { checks } = await db
    .selectFrom('card_checks')
    .select((eb) => eb.fn.countAll<number>().as('checks'))
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirstOrThrow()
  return Number(checks) + 1
}

export async function recordCardCheck(trx: Trx, row: Insertable<CardChecksTable>): Promise<void> {
  await trx.insertInto('card_checks').values(row).execute()
}
