import type { Reader, Trx } from '../../db/database.js'

/** The gateway's customer of an Amparo customer, once kept. */
export async function findGatewayCustomer(db: Reader, customerId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('gateway_customers')
    .select('gateway_customer_id')
    .where('customer_id', '=', customerId)
    .executeTakeFirst()
  return row?.gateway_customer_id
}

/** Keeps the gateway's customer of an Amparo customer unless one is kept already (the first wins). */
export async function keepGatewayCustomer(
  trx: Trx,
  customerId: number,
  gatewayCustomerId: string,
  at: string,
): Promise<void> {
  await trx
    .insertInto('gateway_customers')
    .values({ customer_id: customerId, gateway_customer_id: gatewayCustomerId, created_at: at })
    .onConflict((oc) => oc.column('customer_id').doNothing())
    .execute()
}
