import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import { lockingRows } from '../../db/database.js'
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/tables/webhook.js'

export type EndpointRow = Selectable<WebhookEndpointsTable>
export type NewDelivery = Insertable<WebhookDeliveriesTable>

/**
 * Takes the partner's row lock until commit (PostgreSQL), so that two registrations at once
 * count each other and the 11th endpoint is refused; SQLite has one writer at a time already.
 */
export async function lockPartner(trx: Trx, partnerId: number): Promise<void> {
  await lockingRows(trx, trx.selectFrom('partners').select('id').where('id', '=', partnerId)).execute()
}

export async function countEndpoints(trx: Trx, partnerId: number): Promise<number> {
  const row = await trx
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('partner_id', '=', partnerId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function insertEndpoint(trx: Trx, row: Insertable<WebhookEndpointsTable>): Promise<EndpointRow> {
  return trx.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function listEndpoints(db: Reader, partnerId: number): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('id')
    .execute()
}

export async function findEndpoint(
  db: Reader,
  partnerId: number,
  id: number,
): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function updateEndpoint(
  trx: Trx,
  partnerId: number,
  id: number,
  changes: Updateable<WebhookEndpointsTable>,
): Promise<EndpointRow | undefined> {
  return trx
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

/** Deletes the endpoint and its deliveries; false when it is not the partner's. */
export async function deleteEndpoint(trx: Trx, partnerId: number, id: number): Promise<boolean> {
  const endpoint = await findEndpoint(trx, partnerId, id)
  if (!endpoint) return false
  await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute()
  await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute()
  return true
}

/** The partner's enabled endpoints. */
export async function enabledEndpoints(db: Reader, partnerId: number): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('status', '=', 'enabled')
    .execute()
}

export async function insertDeliveries(trx: Trx, rows: NewDelivery[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('webhook_deliveries').values(rows).execute()
}

/** One page of the endpoint's deliveries, newest first, and their total. */
export async function listDeliveries(db: Reader, endpointId: number, offset: number, limit: number) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute(),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.n) }
}
