import { type Kysely, sql } from 'kysely'
import { columnTypes } from './column-types.js'

/**
 * One active protection per device (docs/decisions.md, Devices): `device_protections` holds one row per device
 * key, naming the subscription or annual plan that took it (see db/tables/device-protection.ts). The
 * existing active protections are written in, oldest first; when two already name one device the
 * oldest keeps it and the later ones stay as they are, unrecorded (docs/decisions.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema
    .createTable('device_protections')
    .addColumn('device_key', 'text', (c) => c.primaryKey())
    .addColumn('subscription_id', 'integer', (c) => c.references('subscriptions.id'))
    .addColumn('annual_plan_id', 'integer', (c) => c.references('annual_plans.id'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addCheckConstraint(
      'device_protections_one_holder',
      sql`(subscription_id is null) <> (annual_plan_id is null)`,
    )
    .execute()

  // Untyped: the schema at this migration, not the application's Database.
  // biome-ignore lint/suspicious/noExplicitAny: migrations run on an untyped view of the schema
  const untyped = db as Kysely<any>
  const subscriptions: Active[] = await untyped
    .selectFrom('subscriptions')
    .select(['id', 'serial_number as first', 'second_serial_number as second', 'created_at'])
    .where('status', 'in', ['pending', 'pago'])
    .execute()
  const plans: Active[] = await untyped
    .selectFrom('annual_plans')
    .select(['id', 'imei as first', 'imei_2 as second', 'created_at'])
    .where('status', 'in', ['awaiting_payment', 'paid', 'protected'])
    .execute()
  const rows = [
    ...subscriptions.map((s) => ({ ...s, holder: { subscription_id: s.id, annual_plan_id: null } })),
    ...plans.map((p) => ({ ...p, holder: { subscription_id: null, annual_plan_id: p.id } })),
  ]
  // Oldest first; the first to name a key keeps it.
  rows.sort((a, b) => instant(a.created_at) - instant(b.created_at) || a.id - b.id)
  const taken = new Map<string, Record<string, unknown>>()
  for (const row of rows) {
    for (const serial of [row.first, row.second]) {
      const key = serial ? deviceKey(serial) : ''
      if (key && !taken.has(key)) {
        taken.set(key, { device_key: key, ...row.holder, created_at: row.created_at })
      }
    }
  }
  const values = [...taken.values()]
  for (let i = 0; i < values.length; i += 500) {
    await untyped
      .insertInto('device_protections')
      .values(values.slice(i, i + 500))
      .execute()
  }
  await db.schema
    .createIndex('device_protections_subscription_idx')
    .on('device_protections')
    .column('subscription_id')
    .execute()
  await db.schema
    .createIndex('device_protections_annual_plan_idx')
    .on('device_protections')
    .column('annual_plan_id')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_protections').execute()
}

interface Active {
  id: number
  first: string | null
  second: string | null
  /** UTC ISO instant (db/postgres.ts reads timestamptz as one too). */
  created_at: string
}

const instant = (value: string) => new Date(value).getTime()

/** The device key of this migration's day, frozen: letters and digits of any script, uppercase. */
const deviceKey = (input: string) =>
  input
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]/gu, '')
    .toUpperCase()
