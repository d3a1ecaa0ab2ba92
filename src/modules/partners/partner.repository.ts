import { type Insertable, sql } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import type {
  CredentialsTable,
  GatewayMode,
  PartnersTable,
  PartnerUsersTable,
} from '../../db/tables/partner.js'

/** The partner's id, name and gateway, if it exists. */
export async function findPartner(db: Reader, partnerId: number) {
  return db
    .selectFrom('partners')
    .select(['id', 'name', 'gateway'])
    .where('id', '=', partnerId)
    .executeTakeFirst()
}

/** Whether Amparo writes to the partner's customers, if the partner exists. */
export async function findNotifyInsured(db: Reader, partnerId: number) {
  return db.selectFrom('partners').select('notify_insured').where('id', '=', partnerId).executeTakeFirst()
}

/** Whether a store (any partner's) carries this CNPJ. */
export async function storeDocumentTaken(db: Reader, document: string): Promise<boolean> {
  const row = await db
    .selectFrom('shopkeepers')
    .select('id')
    .where('registration_number', '=', document)
    .executeTakeFirst()
  return row !== undefined
}

export async function insertPartner(trx: Trx, row: Insertable<PartnersTable>) {
  return trx.insertInto('partners').values(row).returning(['id', 'name', 'gateway']).executeTakeFirstOrThrow()
}

/** The partner's matrix store, named and registered as the partner is. */
export async function insertMatrixStore(
  trx: Trx,
  partnerId: number,
  name: string,
  document: string | null,
  now: string,
): Promise<void> {
  await trx
    .insertInto('shopkeepers')
    .values({
      partner_id: partnerId,
      matrix: true,
      trading_name: name,
      registration_number: document,
      created_at: now,
    })
    .execute()
}

/** Lets the partner sell every model of the catalog (keeps models already attributed as they are). */
export async function attributeAllModels(trx: Trx, partnerId: number) {
  await trx
    .insertInto('partner_models')
    .columns(['partner_id', 'model_id', 'unavailable'])
    .expression((eb) =>
      eb
        .selectFrom('models')
        .select((s) => [s.val(partnerId).as('partner_id'), 'id as model_id', s.val(false).as('unavailable')])
        // SQLite needs a WHERE to tell the SELECT's end from the ON CONFLICT clause.
        .where(sql<boolean>`true`),
    )
    .onConflict((oc) => oc.columns(['partner_id', 'model_id']).doNothing())
    .execute()
}

/** The partner's new gateway mode; undefined when there is no such partner. */
export async function updateGateway(trx: Trx, partnerId: number, gateway: GatewayMode) {
  return trx
    .updateTable('partners')
    .set({ gateway })
    .where('id', '=', partnerId)
    .returning(['id', 'gateway'])
    .executeTakeFirst()
}

export async function updateNotifyInsured(trx: Trx, partnerId: number, on: boolean) {
  return trx
    .updateTable('partners')
    .set({ notify_insured: on })
    .where('id', '=', partnerId)
    .returning(['id', 'notify_insured'])
    .executeTakeFirst()
}

export async function insertCredentials(trx: Trx, row: Insertable<CredentialsTable>): Promise<void> {
  await trx.insertInto('credentials').values(row).execute()
}

export async function findCredentials(db: Reader, clientId: string) {
  return db
    .selectFrom('credentials')
    .select(['id', 'revoked_at'])
    .where('client_id', '=', clientId)
    .executeTakeFirst()
}

export async function revokeCredentialsRow(trx: Trx, id: number, now: string): Promise<void> {
  await trx.updateTable('credentials').set({ revoked_at: now }).where('id', '=', id).execute()
}

/**
 * Stores the partner user, or gives the same partner's user with this email the new password;
 * undefined when the email belongs to another partner's user.
 */
export async function upsertPartnerUser(
  trx: Trx,
  row: Insertable<PartnerUsersTable> & { password_hash: string },
) {
  return trx
    .insertInto('partner_users')
    .values(row)
    .onConflict((oc) =>
      oc
        .column('email')
        .doUpdateSet({ password_hash: row.password_hash, disabled: false })
        .where('partner_users.partner_id', '=', row.partner_id),
    )
    .returning(['id', 'email'])
    .executeTakeFirst()
}
