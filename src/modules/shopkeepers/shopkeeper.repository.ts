import type { Insertable, Selectable } from 'kysely'
import type { Reader, Trx } from '../../db/database.js'
import type { ShopkeepersTable } from '../../db/tables/shopkeeper.js'

export type ShopkeeperRow = Selectable<ShopkeepersTable>
export type NewShopkeeperRow = Omit<Insertable<ShopkeepersTable>, 'id' | 'matrix'>

/** The columns unique across the service, by the body field each comes from. */
export const UNIQUE_FIELDS = {
  registration_number: 'registration_number',
  responsible_email: 'responsible.email',
  responsible_registration_number: 'responsible.registration_number',
} as const

export type UniqueColumn = keyof typeof UNIQUE_FIELDS

// PostgreSQL's default names for the column constraints of 0001-foundation (checked in pg_constraint).
export const UNIQUE_CONSTRAINTS: Record<string, UniqueColumn[]> = {
  shopkeepers_registration_number_key: ['registration_number'],
  shopkeepers_responsible_email_key: ['responsible_email'],
  shopkeepers_responsible_registration_number_key: ['responsible_registration_number'],
}

/** Which of the unique values are already taken, by any store of any partner. */
export async function findTakenColumns(
  trx: Trx,
  values: Pick<NewShopkeeperRow, UniqueColumn>,
): Promise<UniqueColumn[]> {
  const columns = Object.keys(UNIQUE_FIELDS) as UniqueColumn[]
  const rows = await trx
    .selectFrom('shopkeepers')
    .select(columns)
    .where((eb) => eb.or(columns.map((column) => eb(column, '=', values[column] ?? null))))
    .execute()
  return columns.filter((column) =>
    rows.some((row) => row[column] !== null && row[column] === values[column]),
  )
}

export async function insertShopkeeper(trx: Trx, row: NewShopkeeperRow): Promise<ShopkeeperRow> {
  return trx
    .insertInto('shopkeepers')
    .values({ ...row, matrix: false })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** The partner's stores: its matrix first, then the branches in registration order. */
export async function listShopkeepers(db: Reader, partnerId: number, offset: number, limit: number) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('shopkeepers')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .orderBy('matrix', 'desc')
      .orderBy('id')
      .offset(offset)
      .limit(limit)
      .execute(),
    db
      .selectFrom('shopkeepers')
      .where('partner_id', '=', partnerId)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.total) }
}

/** One store of the partner; another partner's is as absent as an unknown id. */
export async function findShopkeeper(
  db: Reader,
  partnerId: number,
  id: number,
): Promise<ShopkeeperRow | undefined> {
  return db
    .selectFrom('shopkeepers')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst()
}
