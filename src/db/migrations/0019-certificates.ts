import { randomBytes } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * The insured's certificate (README, Certificates): a subscription's `policy_number`, given when it
 * becomes `pago` from the annual plans' sequence, and a verification code per
 * contract (`certificate_code`, 160 random bits) on subscriptions and annual plans.
 *
 * Existing rows: a `pago` subscription gets a number now, its year the one its installment 1 was
 * paid in (UTC: the migration does not know the service zone) or, without a payment, contracted
 * in; every contract with a policy number gets a code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('subscriptions').addColumn('policy_number', 'text').execute()
  await db.schema.alterTable('subscriptions').addColumn('certificate_code', 'text').execute()
  await db.schema.alterTable('annual_plans').addColumn('certificate_code', 'text').execute()
  await db.schema
    .createIndex('subscriptions_policy_number_unique')
    .on('subscriptions')
    .column('policy_number')
    .unique()
    .execute()
  await db.schema
    .createIndex('subscriptions_certificate_code_unique')
    .on('subscriptions')
    .column('certificate_code')
    .unique()
    .execute()
  await db.schema
    .createIndex('annual_plans_certificate_code_unique')
    .on('annual_plans')
    .column('certificate_code')
    .unique()
    .execute()

  const BATCH = 500
  for (;;) {
    const { rows } = await sql<{ id: number; paid_at: string | Date | null; created_at: string | Date }>`
      select s.id, i.paid_at, s.created_at
      from subscriptions s left join installments i on i.subscription_id = s.id and i.number = 1
      where s.status = 'pago' and s.policy_number is null order by s.id limit ${BATCH}`.execute(db)
    for (const row of rows) {
      const at = row.paid_at ?? row.created_at
      const year = (at instanceof Date ? at.toISOString() : String(at)).slice(0, 4)
      const serial = await nextPolicySerial(db)
      const number = `AMP-${year}-${String(serial).padStart(6, '0')}`
      await sql`update subscriptions set policy_number = ${number}, certificate_code = ${verificationCode()}
        where id = ${row.id}`.execute(db)
    }
    if (rows.length < BATCH) break
  }
  for (;;) {
    const { rows } = await sql<{ id: number }>`
      select id from annual_plans where policy_number is not null and certificate_code is null
      order by id limit ${BATCH}`.execute(db)
    for (const row of rows) {
      await sql`update annual_plans set certificate_code = ${verificationCode()} where id = ${row.id}`.execute(
        db,
      )
    }
    if (rows.length < BATCH) break
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('annual_plans_certificate_code_unique').execute()
  await db.schema.dropIndex('subscriptions_certificate_code_unique').execute()
  await db.schema.dropIndex('subscriptions_policy_number_unique').execute()
  await db.schema.alterTable('annual_plans').dropColumn('certificate_code').execute()
  await db.schema.alterTable('subscriptions').dropColumn('certificate_code').execute()
  await db.schema.alterTable('subscriptions').dropColumn('policy_number').execute()
}

// The sequence and the code as they stood when this migration was written (db/policy-sequence.ts,
// certificates/certificate.rules.ts), frozen here: a migration gives every database the same rows,
// whatever the live code becomes.

/** The next number of the annual plans' id sequence, without inserting a plan. */
async function nextPolicySerial(db: Kysely<unknown>): Promise<number> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ serial: string | number }>`
      select nextval(pg_get_serial_sequence('annual_plans', 'id')) as serial`.execute(db)
    return Number(rows[0]?.serial)
  }
  const { rows } = await sql<{ seq: number }>`
    update sqlite_sequence set seq = seq + 1 where name = 'annual_plans' returning seq`.execute(db)
  if (rows[0]) return Number(rows[0].seq)
  await sql`insert into sqlite_sequence (name, seq) values ('annual_plans', 1)`.execute(db)
  return 1
}

/** 20 random bytes in RFC 4648 base32 without padding: 32 characters. */
function verificationCode(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = 0
  let value = 0
  let out = ''
  for (const byte of randomBytes(20)) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
    value &= (1 << bits) - 1
  }
  return out
}
