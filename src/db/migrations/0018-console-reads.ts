import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../database.js'

/**
 * The operator console's reads (README, Operator console: the operator API behind the screens), each an indexed lookup or range rather
 * than a scan of 100,000 subscriptions (docs/benchmarks.md, Operator console):
 *
 * - search: a customer's document across partners, serial numbers and IMEIs, policy numbers;
 * - dashboard: contracts, ledger rows and claims by instant (the period's range), protections in force;
 * - claims queue: oldest first, whole or by status;
 * - a partner's webhook health: an endpoint's deliveries of the last 24 hours;
 * - a claim's timeline: a partner's events by their object's id (`data.id`), an expression index
 *   the query spells the same way (console/claims-desk.repository.ts).
 *
 * And one kept aggregate, `premium_months`: premiums written and collected per UTC month, partner
 * and plan, kept by triggers on the three tables they come from (append-only: contracts' premiums
 * and ledger rows are never updated nor deleted), so the dashboard reads a few hundred rows rather
 * than the whole ledger (docs/decisions.md, Operator console data). Filled here from what exists.
 */
const INDEXES: [name: string, table: string, columns: string[]][] = [
  ['customers_document_idx', 'customers', ['document']],
  ['subscriptions_serial_idx', 'subscriptions', ['serial_number']],
  ['subscriptions_second_serial_idx', 'subscriptions', ['second_serial_number']],
  ['subscriptions_created_at_idx', 'subscriptions', ['created_at']],
  ['subscriptions_active_idx', 'subscriptions', ['status', 'ends_on']],
  ['annual_plans_imei_idx', 'annual_plans', ['imei']],
  ['annual_plans_imei_2_idx', 'annual_plans', ['imei_2']],
  ['annual_plans_policy_number_idx', 'annual_plans', ['policy_number']],
  ['annual_plans_created_at_idx', 'annual_plans', ['created_at']],
  ['payments_created_at_idx', 'payments', ['created_at']],
  ['claims_created_at_idx', 'claims', ['created_at', 'id']],
  ['claims_status_created_at_idx', 'claims', ['status', 'created_at', 'id']],
  ['claims_decided_at_idx', 'claims', ['decided_at']],
  ['claims_settled_at_idx', 'claims', ['settled_at']],
  ['webhook_deliveries_endpoint_created_at', 'webhook_deliveries', ['endpoint_id', 'created_at']],
]

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, table, columns] of INDEXES)
    await db.schema.createIndex(name).on(table).columns(columns).execute()
  const objectId = isPostgres(db) ? sql`(data::jsonb ->> 'id')` : sql`json_extract(data, '$.id')`
  await sql`create index events_object_id on events (partner_id, ${objectId})`.execute(db)
  await keepPremiumMonths(db)
}

const KEPT_BY = ['subscriptions', 'annual_plans', 'payments']

async function keepPremiumMonths(db: Kysely<unknown>): Promise<void> {
  const pg = isPostgres(db)
  await db.schema
    .createTable('premium_months')
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'integer', (c) => c.notNull())
    // 0: ledger rows of no contract.
    .addColumn('plan_id', 'integer', (c) => c.notNull())
    .addColumn('written', pg ? 'bigint' : 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('collected', pg ? 'bigint' : 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('premium_months_pk', ['month', 'partner_id', 'plan_id'])
    .execute()

  // What a row adds, in SQL over `row` (a table alias, or `new` in a trigger).
  const month = (row: string) =>
    pg ? `to_char(${row}.created_at at time zone 'UTC', 'YYYY-MM')` : `substr(${row}.created_at, 1, 7)`
  const planOfPayment = (row: string) => `coalesce(
      (select s.plan_id from subscriptions s where s.id = ${row}.subscription_id),
      (select a.plan_id from annual_plans a where a.id = ${row}.annual_plan_id), 0)`
  // Approved and recorded payments in, refunds paid out.
  const collected = (row: string) =>
    `case when ${row}.outcome = 'refunded' then -${row}.amount else ${row}.amount end`
  const collecting = (row: string) => `${row}.outcome in ('approved', 'recorded', 'refunded')`

  await sql`insert into premium_months (month, partner_id, plan_id, written, collected)
    select month, partner_id, plan_id, sum(written), sum(collected) from (
      select ${sql.raw(month('s'))} as month, s.partner_id, s.plan_id,
        s.monthly_premium * s.installments_count as written, 0 as collected from subscriptions s
      union all
      select ${sql.raw(month('a'))}, a.partner_id, a.plan_id, a.premium, 0 from annual_plans a
      union all
      select ${sql.raw(month('p'))}, p.partner_id, ${sql.raw(planOfPayment('p'))}, 0, ${sql.raw(collected('p'))}
      from payments p where ${sql.raw(collecting('p'))}
    ) as sums group by month, partner_id, plan_id`.execute(db)

  if (pg) {
    await sql`create function premium_months_keep() returns trigger language plpgsql as $$
      declare
        m text := ${sql.raw(month('new'))};
        plan integer;
        w bigint := 0;
        c bigint := 0;
      begin
        if tg_table_name = 'subscriptions' then
          plan := new.plan_id;
          w := new.monthly_premium * new.installments_count;
        elsif tg_table_name = 'annual_plans' then
          plan := new.plan_id;
          w := new.premium;
        else
          if not (${sql.raw(collecting('new'))}) then return null; end if;
          plan := ${sql.raw(planOfPayment('new'))};
          c := ${sql.raw(collected('new'))};
        end if;
        insert into premium_months as pm (month, partner_id, plan_id, written, collected)
          values (m, new.partner_id, plan, w, c)
          on conflict (month, partner_id, plan_id)
          do update set written = pm.written + excluded.written, collected = pm.collected + excluded.collected;
        return null;
      end $$`.execute(db)
    for (const table of KEPT_BY) {
      await sql`create trigger ${sql.raw(`${table}_premium_months`)} after insert on ${sql.raw(table)}
        for each row execute function premium_months_keep()`.execute(db)
    }
    return
  }
  const upsert = (plan: string, written: string, added: string) =>
    `insert into premium_months (month, partner_id, plan_id, written, collected)
      values (${month('new')}, new.partner_id, ${plan}, ${written}, ${added})
      on conflict (month, partner_id, plan_id)
      do update set written = written + excluded.written, collected = collected + excluded.collected;`
  await sql`create trigger subscriptions_premium_months after insert on subscriptions begin
    ${sql.raw(upsert('new.plan_id', 'new.monthly_premium * new.installments_count', '0'))}
    end`.execute(db)
  await sql`create trigger annual_plans_premium_months after insert on annual_plans begin
    ${sql.raw(upsert('new.plan_id', 'new.premium', '0'))}
    end`.execute(db)
  await sql`create trigger payments_premium_months after insert on payments when ${sql.raw(collecting('new'))} begin
    ${sql.raw(upsert(planOfPayment('new'), '0', collected('new')))}
    end`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const pg = isPostgres(db)
  for (const table of KEPT_BY)
    await sql.raw(`drop trigger if exists ${table}_premium_months${pg ? ` on ${table}` : ''}`).execute(db)
  if (pg) await sql`drop function if exists premium_months_keep()`.execute(db)
  await db.schema.dropTable('premium_months').execute()
  await db.schema.dropIndex('events_object_id').execute()
  for (const [name] of [...INDEXES].reverse()) await db.schema.dropIndex(name).execute()
}
